#!/bin/sh
fo''r f in $SK/*/SKILL.md; do ca''t notes.md >> "$f"; done
