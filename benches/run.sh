#!/usr/bin/env bash
# Runs every benchmark script in benches/ (bench_*.sh / bench_*.py) against the release
# build; results are printed and written to bench-out/. Each area's script compares with the
# Python peer on the same input where the issue asks for it.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench-out
export HERMES_LOOP_BIN="$PWD/target/release"
export HERMES_PEER_PYTHON="${HERMES_PEER_PYTHON:-$PWD/.venv-peer/bin/python}"
shopt -s nullglob
ran=0
for script in benches/bench_*.sh benches/bench_*.py; do
    echo "== $script"
    case "$script" in
        *.py) "$HERMES_PEER_PYTHON" "$script" ;;
        *) bash "$script" ;;
    esac
    ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || echo "no benchmarks yet"
