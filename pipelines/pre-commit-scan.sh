#!/usr/bin/env bash
# The pre-commit hook (.pre-commit-hooks.yaml): lint and security-scan every skill a commit
# touches.
#
#   pipelines/pre-commit-scan.sh [ARG...] FILE...
#
# pre-commit passes the changed files; each is mapped to its skill, the nearest folder at or
# above it holding a SKILL.md, and each skill is scanned once. Arguments starting with `-`
# (a hook's `args:`) go to hermes-skill-scan; the default is `--lint --fail-on dangerous`.
# Exits like the scanner: 0 clean, 1 a verdict at or above --fail-on or a lint error, 2 an
# error. HERMES_LOOP_BIN=DIR names where hermes-skill-scan is, if not on PATH.
set -euo pipefail

if [ -n "${HERMES_LOOP_BIN:-}" ]; then
    export PATH="$HERMES_LOOP_BIN:$PATH"
fi
command -v hermes-skill-scan >/dev/null || {
    echo "pre-commit-scan: hermes-skill-scan not found: install it (cargo install --git <hermes-loop> --bin hermes-skill-scan) or set HERMES_LOOP_BIN" >&2
    exit 2
}

options=()
files=()
while [ $# -gt 0 ]; do
    case "$1" in
        # Options that take a value take the next argument with them.
        --fail-on | --baseline | --lint-profile | --trust | -j | --threads)
            if [ $# -lt 2 ]; then
                echo "pre-commit-scan: $1 needs a value" >&2
                exit 2
            fi
            options+=("$1" "$2")
            shift 2
            ;;
        -*)
            options+=("$1")
            shift
            ;;
        *)
            files+=("$1")
            shift
            ;;
    esac
done
if [ ${#options[@]} -eq 0 ]; then
    options=(--lint --fail-on dangerous)
fi

# The skill holding a file: walk up from its folder (paths are relative to the repository
# top, where pre-commit runs hooks) until a folder has a SKILL.md.
skill_of() {
    local dir
    dir=$(dirname -- "$1")
    while :; do
        if [ -f "$dir/SKILL.md" ]; then
            printf '%s\n' "$dir"
            return
        fi
        case "$dir" in
            . | / | "") return ;;
        esac
        dir=$(dirname -- "$dir")
    done
}

skills=()
declare -A seen=()
for file in ${files[@]+"${files[@]}"}; do
    skill=$(skill_of "$file")
    if [ -n "$skill" ] && [ -z "${seen[$skill]+x}" ]; then
        seen[$skill]=1
        skills+=("$skill")
    fi
done
if [ ${#skills[@]} -eq 0 ]; then
    exit 0
fi
exec hermes-skill-scan --format text --quiet "${options[@]}" -- "${skills[@]}"
