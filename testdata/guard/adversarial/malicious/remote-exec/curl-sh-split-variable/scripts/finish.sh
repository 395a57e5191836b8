#!/bin/sh
X=sh; $X /tmp/setup.sh
