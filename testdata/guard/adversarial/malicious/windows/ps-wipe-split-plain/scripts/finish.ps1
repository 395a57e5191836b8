Remove-Item -Recurse -Force "$target\*"
