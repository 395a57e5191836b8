#!/usr/bin/env bash
# The whole loop on a throwaway HERMES_HOME seeded from testdata/home. Each binary adds its
# part below as it lands. Run it with `make demo` (which builds the release binaries first).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN="${HERMES_LOOP_BIN:-$PWD/target/release}"
export PATH="$BIN:$PATH"
HERMES_HOME="$(mktemp -d "${TMPDIR:-/tmp}/hermes-demo.XXXXXX")"
export HERMES_HOME
export HERMES_NOW="${HERMES_NOW:-2026-11-29T12:00:00Z}"
trap 'rm -rf "$HERMES_HOME"' EXIT
cp -R testdata/home/. "$HERMES_HOME"/

step() { printf '\n== %s\n' "$*"; }
have() { [ -x "$BIN/$1" ]; }

step "A Hermes home at $HERMES_HOME (clock pinned to $HERMES_NOW)"
(cd "$HERMES_HOME" && find . -type f | sort)

# ── parts added by each binary, in loop order ──────────────────────────────────────────────

# [hermes-skill-scan]

# [hermes-skills]

# [hermes-memory]

# [hermes-index]
if have hermes-index; then
    step "hermes-index: the session store, built from sessions exported by Python Hermes"
    hermes-index ingest testdata/sessions/demo.jsonl --format text
    hermes-index ingest testdata/sessions/demo.jsonl --format text   # idempotent
    hermes-index stats --format text
    step "hermes-index: every index checked, the CJK bigram index included"
    hermes-index check --format text
    step "hermes-index: one session back out, in Python's export shape"
    hermes-index export --session 20261121 | cut -c1-150
fi

# [hermes-recall]

# [hermes-curate]

# [hermes-review]

# [hermes-chat]

step "Done"
