&('Set-MpPr'+'eference') -DisableRealtimeMonitoring $flag
