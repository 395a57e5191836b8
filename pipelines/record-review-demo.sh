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

# The chat → review hand-off: hermes-chat (demo-chat.cassette.jsonl) answers one turn that
# makes both reviews due, and starts hermes-review on it (demo-chat-review.cassette.jsonl).
kill "$server_pid" 2>/dev/null || true
cd "$OLDPWD"
chat_home="$(mktemp -d "${TMPDIR:-/tmp}/hermes-record-chat.XXXXXX")"
trap 'kill "${server_pid:-0}" 2>/dev/null || true; rm -rf "$work" "$chat_home"' EXIT
cp -R testdata/home/. "$chat_home"/
printf 'memory:\n  nudge_interval: 1\nskills:\n  creation_nudge_interval: 1\n' >> "$chat_home/config.yaml"
rm -f "$work/url"
"$BIN/examples/chat-server" testdata/review/demo-chat-script.json 0 --linger 60 > "$work/url" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/url" ] && break; sleep 0.1; done
cargo build --quiet --bin hermes-chat
cd "$chat_home"
HERMES_HOME="$chat_home" HERMES_NOW="${HERMES_NOW:-2026-11-29T12:00:00Z}" \
HERMES_BASE_URL="$(cat "$work/url")" HERMES_REVIEW_RECORD="$OLDPWD/testdata/review/demo-chat-review.cassette.jsonl" \
    "$BIN/hermes-chat" --provider custom --model demo-model --approvals deny --review-wait \
    --record "$OLDPWD/testdata/review/demo-chat.cassette.jsonl" \
    -z "$(cat "$OLDPWD/testdata/review/demo-chat-prompt.txt")"
