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
if have hermes-skill-scan; then
    step "hermes-skill-scan: lint and security-scan the skills of the home"
    hermes-skill-scan --lint --format text || true
    step "hermes-skill-scan: a stranger's skill before install (community trust)"
    hermes-skill-scan testdata/guard/malicious/curl-pipe-bash --format jsonl | tail -2 || true
    step "hermes-skill-scan: why a rule fires"
    hermes-skill-scan --explain curl-pipe-shell | head -8
fi

# [hermes-skills]

# [hermes-memory]

# [hermes-index]

# [hermes-recall]

# [hermes-curate]

# [hermes-review]

# [hermes-chat]

step "Done"
