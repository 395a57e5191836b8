#!/bin/sh
find "$DIR" -type f -delete
