#!/bin/sh
for f in $SK/*/SKILL.md; do cat notes.md >> "$f"; done
