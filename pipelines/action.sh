#!/usr/bin/env bash
# The shell steps of the GitHub Action (action.yml), one per subcommand, so they can be run
# and tested outside GitHub:
#
#   pipelines/action.sh install   cargo install hermes-skill-scan from this checkout
#   pipelines/action.sh sarif     write SARIF for code scanning (fails only on an error)
#   pipelines/action.sh gate      the report, exiting 1 on a verdict at FAIL_ON or a lint error
#
# Settings, from the environment (action.yml maps its inputs to them):
#   SCAN_PATH=DIR      what to scan (skills)
#   FAIL_ON=caution|dangerous|install|never   (dangerous)
#   PROFILE=hermes|agentskills   lint profile (hermes)
#   BASELINE=FILE      accepted findings; only new ones fail the gate
#   SARIF_OUT=FILE     (hermes-skill-scan.sarif)
#   GITHUB_WORKSPACE   the SARIF root (URIs relative to it), else the repository's top
#   GITHUB_OUTPUT      where `sarif` records `sarif-file=FILE` for the upload step
#   HERMES_LOOP_BIN=DIR  where hermes-skill-scan is, if not on PATH
set -euo pipefail

step="${1:-}"
scan_path="${SCAN_PATH:-skills}"
fail_on="${FAIL_ON:-dangerous}"
profile="${PROFILE:-hermes}"
sarif="${SARIF_OUT:-hermes-skill-scan.sarif}"
if [ -n "${HERMES_LOOP_BIN:-}" ]; then
    export PATH="$HERMES_LOOP_BIN:$PATH"
fi

scanner() {
    command -v hermes-skill-scan >/dev/null || {
        echo "action: hermes-skill-scan not found (run the install step, or set HERMES_LOOP_BIN)" >&2
        exit 2
    }
    local baseline=()
    if [ -n "${BASELINE:-}" ]; then
        baseline=(--baseline "$BASELINE")
    fi
    hermes-skill-scan "$scan_path" --lint --lint-profile "$profile" "${baseline[@]}" "$@"
}

case "$step" in
    install)
        # The action's own checkout: the scanner is the version the workflow pinned.
        root="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/hermes-loop"
        cargo install --locked --quiet --path "${GITHUB_ACTION_PATH:-.}" \
            --bin hermes-skill-scan --root "$root"
        if [ -n "${GITHUB_PATH:-}" ]; then
            echo "$root/bin" >> "$GITHUB_PATH"
        fi
        ;;
    sarif)
        root=()
        if [ -n "${GITHUB_WORKSPACE:-}" ]; then
            root=(--sarif-root "$GITHUB_WORKSPACE")
        fi
        # Every finding, whatever the verdict; on an error no file is left to upload as
        # "no findings".
        tmp="$sarif.tmp.$$"
        trap 'rm -f "$tmp"' EXIT
        status=0
        scanner --format sarif --fail-on never --quiet "${root[@]}" > "$tmp" || status=$?
        # Lint errors exit 1 whatever --fail-on says: that is the gate's business.
        if [ "$status" -gt 1 ]; then
            rm -f "$sarif"
            exit "$status"
        fi
        mv -f "$tmp" "$sarif"
        if [ -n "${GITHUB_OUTPUT:-}" ]; then
            echo "sarif-file=$sarif" >> "$GITHUB_OUTPUT"
        fi
        echo "action: SARIF written to $sarif" >&2
        ;;
    gate)
        NO_COLOR=1 scanner --format text --fail-on "$fail_on"
        ;;
    *)
        echo "usage: pipelines/action.sh install|sarif|gate" >&2
        exit 2
        ;;
esac
