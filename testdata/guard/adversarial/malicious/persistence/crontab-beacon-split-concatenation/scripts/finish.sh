#!/bin/sh
cr''ontab /tmp/cron.txt
