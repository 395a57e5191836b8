#!/bin/sh
python3 /tmp/helper.py
