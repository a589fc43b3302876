#!/usr/bin/env bash
# The whole test suite: builds and installs tcplab (Rust core + Python package), runs the Rust
# tests (formula, scripted and whole-scenario), checks the benchmark compiles, runs the Python
# tests, and fuzzes the scenario parser and every algorithm for a minute each (cargo-fuzz).
# Everything it needs comes from crates.io, PyPI and Debian's packages (headless Chromium and its
# driver, which open the HTML reports; tshark, which reads the packet captures; iproute2 and procps,
# with which the Linux back-end's tests build namespaces, as root; ns2, the ns-2.35 simulator the
# ns-2 back-end runs; clang, libbpf-dev and bpftool, which build and load tcplab's BPF congestion
# controls into the kernel).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
    echo "the test suite needs root: the Linux back-end's tests build network namespaces and TUN devices (run it with sudo; CI runs as root)" >&2
    exit 1
fi

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || ! command -v tshark >/dev/null \
    || ! command -v ip >/dev/null || ! command -v sysctl >/dev/null || ! command -v pgrep >/dev/null \
    || ! command -v ns >/dev/null || ! command -v g++ >/dev/null || ! command -v clang >/dev/null \
    || ! command -v bpftool >/dev/null || [ ! -e /usr/include/bpf/bpf_helpers.h ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver tshark iproute2 procps ns2 g++ \
        clang libbpf-dev bpftool >/dev/null
fi

python3 -m pip install --quiet --upgrade pip
python3 -m pip install --quiet -e '.[test]'
cargo test -p tcplab-core -p tcplab-emu
cargo bench -p tcplab-core --no-run
python3 -m pytest -q tests
./scripts/fuzz.sh 60
