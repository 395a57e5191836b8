#!/bin/sh
ruby /tmp/h.rb
