#!/usr/bin/env bash
# Records testdata/review/demo.cassette.jsonl: hermes-review of the demo conversation against
# the scripted loopback server (testdata/review/demo-script.json stands in for the model), on
# a fresh copy of testdata/home with the clock pinned; then, on the home the review left,
# testdata/review/demo-curate.cassette.jsonl: `hermes-curate run --dry-run --consolidate`
# (testdata/review/demo-curate-script.json). Run it again after a change to the review's or
# the curator's prompts or tools; `make demo` replays both cassettes offline.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --quiet --bin hermes-review --bin hermes-curate --example chat-server
BIN="$PWD/target/debug"
work="$(mktemp -d "${TMPDIR:-/tmp}/hermes-record.XXXXXX")"
trap 'kill "${server_pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
cp -R testdata/home/. "$work"/

"$BIN/examples/chat-server" testdata/review/demo-script.json 0 --linger 60 > "$work/url" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done

cd "$work"
HERMES_HOME="$work" HERMES_NOW="${HERMES_NOW:-2026-11-29T12:00:00Z}" \
HERMES_BASE_URL="$(cat url)" "$BIN/hermes-review" --provider custom --model demo-model \
    --record "$OLDPWD/testdata/review/demo.cassette.jsonl" \
    "$OLDPWD/testdata/review/demo-conversation.jsonl"

kill "$server_pid" 2>/dev/null || true
cd "$OLDPWD"
rm -f "$work/url"
"$BIN/examples/chat-server" testdata/review/demo-curate-script.json 0 --linger 60 > "$work/url" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
cd "$work"
HERMES_HOME="$work" HERMES_NOW="${HERMES_NOW:-2026-11-29T12:00:00Z}" \
HERMES_BASE_URL="$(cat url)" "$BIN/hermes-curate" run --dry-run --consolidate --format text \
    --record "$OLDPWD/testdata/review/demo-curate.cassette.jsonl"
