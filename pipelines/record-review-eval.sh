#!/usr/bin/env bash
# Records testdata/review-eval/cassette.jsonl: `hermes-review eval` over the labelled cases
# against the scripted loopback server (testdata/review-eval/script.json, written by
# generate.py, stands in for a model), with the clock pinned. Run it again after a change to
# the review's prompts, tools or cases; `make test` then scores the new cassette offline.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --quiet --bin hermes-review --example chat-server
BIN="$PWD/target/debug"
work="$(mktemp -d "${TMPDIR:-/tmp}/hermes-record.XXXXXX")"
trap 'kill "${server_pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT

"$BIN/examples/chat-server" testdata/review-eval/script.json 0 --linger 60 > "$work/url" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done

cd "$work"
HERMES_HOME="$work" HERMES_NOW="${HERMES_NOW:-2026-12-01T09:00:00Z}" \
HERMES_BASE_URL="$(cat url)" "$BIN/hermes-review" eval --provider custom --model eval-model \
    --record "$OLDPWD/testdata/review-eval/cassette.jsonl" \
    "$OLDPWD/testdata/review-eval/cases.jsonl"
