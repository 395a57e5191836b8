#!/usr/bin/env bash
# Sizes of the release binaries: as `cargo build --release` leaves them (line tables inside),
# as `make install` installs them (debug info split off), and the split-off debug file.
#   benches/binary_sizes.sh [FROM]      FROM: folder of release binaries [target/release]
# Prints a Markdown table (MB = 10^6 bytes). Runs pipelines/install.sh into a temporary
# prefix, so it measures exactly what `make install` ships.
set -euo pipefail
cd "$(dirname "$0")/.."
FROM="${1:-target/release}"
stage="$(mktemp -d "${TMPDIR:-/tmp}/hermes-sizes.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
PREFIX=/usr/local DESTDIR="$stage" ./pipelines/install.sh "$FROM" >/dev/null
mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1e6 }'; }
echo "| binary | built (target/release) | installed | debug file (bin/.debug/) |"
echo "|---|---:|---:|---:|"
for f in "$stage"/usr/local/bin/hermes-*; do
    b="$(basename "$f")"
    echo "| $b | $(mb "$FROM/$b") MB | $(mb "$f") MB | $(mb "$stage/usr/local/bin/.debug/$b.debug") MB |"
done
