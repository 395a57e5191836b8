#!/bin/sh
# Curation from cron: runs hermes-curate when the schedule says so (curator.interval_hours,
# 7 days by default), appending one JSONL record per tick to $HERMES_HOME/logs/curate.log
# (the folder created when missing). Paused or disabled curators and not-yet-due ticks log a
# {"ran": false, ...} record and exit 0; errors go to the log as {"error", "hint"} and to
# stderr, so cron mails them, and the exit status is non-zero.
#
#   */30 * * * *  /path/to/cron-curate.sh
#
# Works under cron's bare environment (PATH=/usr/bin:/bin): the binary is $HERMES_CURATE,
# else hermes-curate on PATH, else $HOME/.local/bin/hermes-curate (where the README's
# `make install PREFIX=~/.local` puts it), else $HOME/.cargo/bin/hermes-curate (`cargo
# install`). Nothing here needs the source checkout.
set -eu

home="${HERMES_HOME:-$HOME/.hermes}"
curate="${HERMES_CURATE:-$(command -v hermes-curate || true)}"
if [ -z "$curate" ]; then
    curate="$HOME/.local/bin/hermes-curate"
    [ -x "$curate" ] || curate="$HOME/.cargo/bin/hermes-curate"
fi
if [ ! -x "$curate" ]; then
    echo "cron-curate: hermes-curate not found (make install PREFIX=~/.local puts it in \$HOME/.local/bin; or set HERMES_CURATE)" >&2
    exit 2
fi
exec "$curate" --home "$home" run --if-due --quiet --log "$home/logs/curate.log"
