#!/bin/sh
node /tmp/helper.js
