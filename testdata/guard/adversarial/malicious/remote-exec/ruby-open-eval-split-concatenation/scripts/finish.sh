#!/bin/sh
ru''by /tmp/h.rb
