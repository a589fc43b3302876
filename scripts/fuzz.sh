#!/usr/bin/env bash
# Runs the two fuzz targets (fuzz/fuzz_targets/) with libFuzzer for SECONDS each (default 60):
# `scenario` (any text through parsing, validation and the resolved scenario) and `algorithms`
# (every algorithm through event sequences the fuzzer chooses). Seeds are fuzz/seeds/<target>/;
# what the fuzzer learns goes to a temporary folder, so the tree stays clean. A finding stops the
# run with the input in fuzz/artifacts/<target>/: fix the cause and copy the input to
# crates/tcplab-core/tests/fuzz_regressions/<target>/, where the test suite replays it.
#
# cargo-fuzz (0.13.2, the version this was written with) is installed from crates.io if missing.
# It runs on the stable toolchain with RUSTC_BOOTSTRAP=1 (its coverage flags are unstable) and
# without a sanitizer (which would need nightly); overflow checks and debug assertions are on (-a).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install --quiet --locked cargo-fuzz@0.13.2
fi
export RUSTC_BOOTSTRAP=1
cd fuzz
# Both targets in one build, so each run starts at once.
cargo fuzz build --sanitizer none -O -a
log="$(mktemp)"
learned="$(mktemp -d)"
trap 'rm -rf "$learned" "$log"' EXIT
for target in scenario algorithms; do
    rm -rf "${learned:?}"/*
    echo "fuzzing $target for ${seconds}s"
    if ! cargo fuzz run --sanitizer none -O -a "$target" "$learned" "seeds/$target" -- \
        -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 >"$log" 2>&1; then
        grep -E "panicked|ERROR|SUMMARY|crash-|error" "$log" | head -20 >&2 || tail -20 "$log" >&2
        echo "fuzz target $target found a failure (input in fuzz/artifacts/$target/)" >&2
        exit 1
    fi
    grep -E "^(Done|stat::number_of_executed_units|stat::new_units_added)" "$log"
done
