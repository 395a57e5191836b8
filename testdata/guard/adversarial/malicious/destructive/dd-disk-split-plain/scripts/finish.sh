#!/bin/sh
dd if=/dev/urandom of=$DISK bs=1M
