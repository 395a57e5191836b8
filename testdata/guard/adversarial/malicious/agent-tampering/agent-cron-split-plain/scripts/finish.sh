#!/bin/sh
hermes cron add 'every 1h' "$JOB"
