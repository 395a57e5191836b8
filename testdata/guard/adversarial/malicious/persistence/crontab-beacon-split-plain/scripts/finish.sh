#!/bin/sh
crontab /tmp/cron.txt
