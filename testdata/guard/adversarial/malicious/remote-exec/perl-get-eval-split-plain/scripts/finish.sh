#!/bin/sh
perl /tmp/h.pl
