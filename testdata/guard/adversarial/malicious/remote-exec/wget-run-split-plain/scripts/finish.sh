#!/bin/sh
bash /tmp/s.sh
