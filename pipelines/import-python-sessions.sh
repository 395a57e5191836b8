#!/usr/bin/env bash
# Copy the sessions of a Python Hermes home into a hermes-loop session store, through the
# JSONL both speak: `hermes sessions export -` writes one session per line, `hermes-index
# ingest` reads it (idempotent: run it again, nightly, and only new rows are added).
#
#   pipelines/import-python-sessions.sh [SOURCE_HOME] TARGET_HOME
#
# SOURCE_HOME defaults to $HERMES_HOME (else ~/.hermes). Both may be the same home only if
# you want nothing to happen: every row is already there. Needs `hermes` (Python Hermes
# 0.19.0) and `hermes-index` on PATH; HERMES_PYTHON_BIN may name the directory of `hermes`.
set -euo pipefail

if [ $# -eq 1 ]; then
    source_home="${HERMES_HOME:-$HOME/.hermes}"
    target_home="$1"
elif [ $# -eq 2 ]; then
    source_home="$1"
    target_home="$2"
else
    echo "usage: $0 [SOURCE_HOME] TARGET_HOME" >&2
    exit 2
fi
hermes="${HERMES_PYTHON_BIN:+$HERMES_PYTHON_BIN/}hermes"

# Everything is checked before the target is touched: a missing tool must not leave an
# empty session store behind.
command -v "$hermes" >/dev/null || {
    echo "import-python-sessions: $hermes not found (Python Hermes 0.19.0; set HERMES_PYTHON_BIN to its bin directory)" >&2
    exit 2
}
command -v hermes-index >/dev/null || {
    echo "import-python-sessions: hermes-index not found on PATH (cargo install --path .)" >&2
    exit 2
}
[ -d "$source_home" ] || {
    echo "import-python-sessions: no Hermes home at $source_home" >&2
    exit 2
}

# Python's export holds the live transcript of every session (archived ones included);
# rows hidden by compaction or rewind stay behind. pipefail makes a failing export fail
# the pipeline instead of ingesting half a file.
HERMES_HOME="$source_home" "$hermes" sessions export - \
    | hermes-index --home "$target_home" ingest - --format text

hermes-index --home "$target_home" check --format text
