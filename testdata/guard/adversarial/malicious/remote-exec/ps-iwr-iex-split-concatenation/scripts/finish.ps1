powershell -ExecutionPolicy Bypass -File $env:TEMP\s.ps1
