#!/usr/bin/env bash
# Lint and security-scan a repository's skills in CI.
#
#   pipelines/ci-scan.sh [SKILLS_DIR]            default: skills
#
# Writes SARIF for GitHub code scanning (every finding, whatever the verdict), prints the
# report for people, and exits like the scanner: 0 clean, 1 a verdict at or above FAIL_ON or
# a lint error, 2 an error. Settings, from the environment:
#   FAIL_ON=caution|dangerous|never   (dangerous)
#   BASELINE=FILE      accepted findings; only new ones fail the run (see --write-baseline)
#   PROFILE=hermes|agentskills        lint profile (hermes)
#   SARIF_OUT=FILE     (hermes-skill-scan.sarif)
#   HERMES_LOOP_BIN=DIR  where hermes-skill-scan is, if not on PATH
set -euo pipefail

skills="${1:-skills}"
fail_on="${FAIL_ON:-dangerous}"
profile="${PROFILE:-hermes}"
sarif="${SARIF_OUT:-hermes-skill-scan.sarif}"
if [ -n "${HERMES_LOOP_BIN:-}" ]; then
    export PATH="$HERMES_LOOP_BIN:$PATH"
fi
command -v hermes-skill-scan >/dev/null || {
    echo "ci-scan: hermes-skill-scan not found (cargo install --path . , or set HERMES_LOOP_BIN)" >&2
    exit 2
}

baseline=()
if [ -n "${BASELINE:-}" ]; then
    baseline=(--baseline "$BASELINE")
fi

# 1. Every finding as SARIF, for the code-scanning upload (never fails the step on a
# verdict). On an error (an unreadable skill, a bad baseline) no SARIF is left behind: an
# empty or partial file would upload as "no findings".
tmp="$sarif.tmp.$$"
trap 'rm -f "$tmp"' EXIT
hermes-skill-scan "$skills" --lint --lint-profile "$profile" --format sarif --fail-on never \
    "${baseline[@]}" > "$tmp" || { status=$?; rm -f "$sarif"; exit "$status"; }
mv -f "$tmp" "$sarif"

# 2. The gate, with a report for the log.
status=0
hermes-skill-scan "$skills" --lint --lint-profile "$profile" --format text --fail-on "$fail_on" \
    "${baseline[@]}" || status=$?
echo "ci-scan: SARIF written to $sarif" >&2
exit "$status"
