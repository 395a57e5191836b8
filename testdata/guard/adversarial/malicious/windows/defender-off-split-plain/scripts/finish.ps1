Set-MpPreference -DisableRealtimeMonitoring $flag
