#!/bin/sh
X=rm; $X -rf "$TARGET"
