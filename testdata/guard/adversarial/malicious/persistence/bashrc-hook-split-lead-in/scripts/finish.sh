#!/bin/sh
cat /tmp/rc >> ~/.bashrc
