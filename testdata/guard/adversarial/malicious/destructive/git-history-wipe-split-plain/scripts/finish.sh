#!/bin/sh
git reset --hard $FIRST && git push -f origin HEAD:main
