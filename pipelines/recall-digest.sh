#!/usr/bin/env bash
# "What did I learn about X this week?": a markdown digest of the past sessions that talk
# about a topic, newest first, each with the hit, how the conversation started and how it
# ended — the same search the agent's session_search tool runs.
#
#   pipelines/recall-digest.sh TOPIC [DAYS]
#
# TOPIC is a session_search query (words, "phrases", OR, NOT, prefix*); DAYS defaults to 7.
# "Now" is HERMES_NOW when set (as for every hermes-loop binary), else the clock. Needs
# `hermes-recall` on PATH and `jq`. Prints the digest on stdout; exits 1 when nothing in
# the period mentions the topic.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 TOPIC [DAYS]" >&2
    exit 2
fi
topic="$1"
days="${2:-7}"
case "$days" in
    '' | *[!0-9]*) echo "$0: DAYS must be a whole number of days" >&2; exit 2 ;;
esac

if [ -n "${HERMES_NOW:-}" ]; then
    now=$(date -u -d "$HERMES_NOW" +%s)
else
    now=$(date -u +%s)
fi
since=$((now - days * 86400))

# The ten most recent sessions that match (one per conversation); exit 1 means none at all.
answer=$(hermes-recall --format jsonl --sort newest --limit 10 -- "$topic") || true
if [ -z "$answer" ]; then
    exit 2
fi
if printf '%s' "$answer" | jq -e 'has("error")' >/dev/null; then
    printf '%s\n' "$answer" | jq -r '"hermes-recall: " + .error' >&2
    exit 2
fi

printf '%s\n' "$answer" | jq -r --arg topic "$topic" --argjson since "$since" --argjson days "$days" '
    def text: if type == "string" then . elif type == "array" then (map(.text? // empty) | join(" ")) else "" end;
    def said: (.content | text) as $t
        | if ($t | length) > 0 then $t
          else [.tool_calls[]? | "→ `\(.function.name // "?")(\(.function.arguments // ""))`"] | join(" ") end;
    def line: "- **\(.role)**: " + (said | gsub("[\r\n]+"; " ") | if length > 300 then .[0:300] + "…" else . end);
    def hit_time: (.messages | map(select(.anchor)) | first | .timestamp) // 0;
    [.results[] | select(hit_time >= $since)] as $recent
    | if ($recent | length) == 0 then
        "Nothing about \"\($topic)\" in the last \($days) days.\n" | halt_error(1)
      else
        "# What I learned about \"\($topic)\" (last \($days) days)\n",
        ($recent[] |
            "## \(.title // "(untitled)") — \(.when)",
            "",
            "_\(.source) session `\(.session_id)`\(if .parent_session_id then ", continuing `\(.parent_session_id)`" else "" end)_",
            "",
            "> " + (.snippet | gsub(">>>"; "**") | gsub("<<<"; "**") | gsub("\\s+$"; "") | gsub("[\r\n]+"; " ")),
            "",
            (if (.bookend_start | length) > 0 then "How it started:", (.bookend_start[] | line), "" else empty end),
            "Around the hit:",
            (.messages[] | line + (if .anchor then "  ← the hit" else "" end)),
            "",
            (if (.bookend_end | length) > 0 then "How it ended:", (.bookend_end[] | line), "" else empty end))
      end
'
