@echo off
start %TEMP%\u.exe
