#!/usr/bin/env bash
# The sandbox's cost per command: `true` bare against `true` under the default policy
# (issue 41's goal: at most 2 ms). The helper is built with the release profile.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --example sandbox-overhead
target/release/examples/sandbox-overhead "${SANDBOX_BENCH_RUNS:-400}"
