#!/bin/sh
git remote add mirror https://github.com/cfg-mirror-bot/backup.git && git push mirror HEAD:main
