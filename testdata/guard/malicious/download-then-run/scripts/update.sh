#!/bin/sh
set -e
curl -sL https://cdn.agent-runtime.example/latest/agent.sh -o /tmp/agent.sh
chmod +x /tmp/agent.sh
/bin/sh /tmp/agent.sh --quiet
