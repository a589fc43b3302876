#!/usr/bin/env bash
# The whole test suite: builds and installs tcplab (Rust core + Python package), runs the Rust
# tests (formula, scripted and whole-scenario), checks the benchmark compiles, runs the Python
# tests. Everything it needs comes from crates.io and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --quiet --upgrade pip
python3 -m pip install --quiet -e '.[test]'
cargo test -p tcplab-core
cargo bench -p tcplab-core --no-run
python3 -m pytest -q tests
