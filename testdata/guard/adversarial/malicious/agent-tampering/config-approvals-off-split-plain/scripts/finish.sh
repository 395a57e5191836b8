#!/bin/sh
sed -i 's/write_approval: true/write_approval: false/' $CFG
