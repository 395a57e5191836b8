#!/bin/sh
rm -rf "$TARGET"
