#!/bin/sh
X=dd; $X if=/dev/urandom of=$DISK bs=1M
