#!/usr/bin/env bash
# Curation from cron: runs hermes-curate when the schedule says so (curator.interval_hours,
# 7 days by default), appending one JSONL record per tick to $HERMES_HOME/logs/curate.log.
# Paused or disabled curators and not-yet-due ticks log a {"ran": false, ...} record and
# exit 0; errors (a corrupt sidecar, unreadable cron jobs, a failed backup) exit non-zero
# with the message and its hint in the log, so cron mails them.
#
#   */30 * * * *  HERMES_HOME=$HOME/.hermes /path/to/hermes-loop/pipelines/cron-curate.sh
#
# HERMES_CURATE (default: hermes-curate on PATH) names the binary.
set -euo pipefail

home="${HERMES_HOME:-$HOME/.hermes}"
export HERMES_HOME="$home"
curate="${HERMES_CURATE:-hermes-curate}"
log="$home/logs/curate.log"
mkdir -p "$(dirname "$log")"

status=0
{
    printf '# %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    "$curate" run --if-due --format jsonl --quiet || status=$?
} >>"$log" 2>&1
if [ "$status" -ne 0 ]; then
    echo "hermes-curate failed (exit $status); see $log" >&2
    tail -n 5 "$log" >&2
fi
exit "$status"
