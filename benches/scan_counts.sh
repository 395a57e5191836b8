#!/usr/bin/env bash
# Counts what a corpus scan costs in terms the machine's load does not blur: instructions
# (valgrind's callgrind) on one thread and per thread on two, and system calls (strace).
#
#   benches/scan_counts.sh [CORPUS]    (default ../shared/corpus/skills-public)
#
# Needs valgrind and strace (`apt-get install valgrind strace`) and a release build
# (`cargo build --release`). Wall-clock figures come from benches/bench_scan.py.
set -euo pipefail
cd "$(dirname "$0")/.."

corpus=${1:-../shared/corpus/skills-public}
bin=${HERMES_LOOP_BIN:-target/release}/hermes-skill-scan
for tool in valgrind strace callgrind_annotate; do
    command -v "$tool" >/dev/null || { echo "scan_counts: $tool is required" >&2; exit 2; }
done
[ -x "$bin" ] || { echo "scan_counts: $bin not found; run cargo build --release" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

instructions() { # FILE: the total a callgrind output file counted
    callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
}

valgrind --tool=callgrind --callgrind-out-file="$work/one" \
    "$bin" "$corpus" --format jsonl --fail-on never -j 1 >/dev/null 2>&1
printf 'corpus, 1 thread:  %s instructions\n' "$(instructions "$work/one")"

valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$work/two" \
    "$bin" "$corpus" --format jsonl --fail-on never -j 2 >/dev/null 2>&1
total=0
per_thread=()
for file in "$work"/two-*; do
    n=$(instructions "$file")
    total=$((total + n))
    per_thread+=("$n")
done
printf 'corpus, 2 threads: %s instructions (per thread: %s)\n' "$total" "${per_thread[*]}"

valgrind --tool=callgrind --callgrind-out-file="$work/start" \
    "$bin" testdata/guard/every-rule --format jsonl --fail-on never -j 1 >/dev/null 2>&1
printf 'start-up (every rule built, one skill): %s instructions\n' "$(instructions "$work/start")"

strace -f -c -o "$work/calls" "$bin" "$corpus" --format jsonl --fail-on never -j 1 >/dev/null
awk '$NF == "total" {print "corpus, system calls: " $4}' "$work/calls"
