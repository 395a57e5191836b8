#!/bin/sh
X=hermes; $X cron add 'every 1h' "$JOB"
