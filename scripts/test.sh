#!/usr/bin/env bash
# The whole test suite: builds and installs tcplab (Rust core + Python package), runs the Rust
# tests (formula, scripted and whole-scenario), checks the benchmark compiles, runs the Python
# tests, and fuzzes the scenario parser and every algorithm for a minute each (cargo-fuzz).
# Everything it needs comes from crates.io, PyPI and Debian's packages (headless Chromium and its
# driver, which open the HTML reports; tshark, which reads the packet captures).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || ! command -v tshark >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver tshark >/dev/null
    else
        echo "the report and capture tests need Debian's chromium, chromium-driver and tshark: run this script as root, or install them" >&2
        exit 1
    fi
fi

python3 -m pip install --quiet --upgrade pip
python3 -m pip install --quiet -e '.[test]'
cargo test -p tcplab-core
cargo bench -p tcplab-core --no-run
python3 -m pytest -q tests
./scripts/fuzz.sh 60
