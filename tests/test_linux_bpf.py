"""tcplab's BPF congestion controls in the real kernel (python/tcplab/backends/linux/bpf/): each
one built, registered, carrying a flow and unregistered; parameters written at load time;
refusals; nothing registered after an interrupted or killed run. Root and real namespaces, as
tests/test_linux_backend.py; each run takes its duration in real time."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tcplab
from tcplab.backends.linux import BackendUnavailable, BpfBuildError, BpfLoadError, bpf_build, bpf_load
from tcplab.backends.linux.congestion_controls import BpfPlan, prepare
from test_linux_backend import NOTHING_LEFT, build_directories, leftovers, scenario, wait_for_endpoints

MSS = 1448
INITIAL_WINDOW_BYTES = 10 * MSS


# Algorithms that need ECN marks run through a step queue (DCTCP's home ground); the others through
# drop-tail.
MARKING_QUEUE = {"dctcp": 'queue = { kind = "step", threshold = "20p" }, '}


def one_flow(cc: str, params: str = "", duration: str = "3s") -> str:
    return f"""
name = "bpf-{cc}"
[simulation]
duration = "{duration}"
sample_interval = "50ms"
[topology]
kind = "dumbbell"
bottleneck = {{ {MARKING_QUEUE.get(cc, "")}rate = "20Mbps", delay = "9ms", buffer = "1BDP" }}
access = {{ rate = "1Gbps", delay = "1ms", buffer = "1000p" }}
[[flows]]
cc = "{cc}"
{params}
"""


def registered_now(algorithm: str) -> bool:
    return bpf_build.kernel_name(algorithm) in bpf_load.registered()


@pytest.mark.parametrize("algorithm", bpf_build.bpf_algorithms())
def test_each_bpf_algorithm_registers_carries_a_flow_and_is_unregistered(algorithm):
    result = tcplab.run(one_flow(algorithm), backend="linux")
    # The sender's socket ran tcplab's version, as the kernel names it.
    assert result.summary["kernel_congestion_controls"] == f"{algorithm}={bpf_build.kernel_name(algorithm)}"
    cwnd = result.timeseries["cwnd_bytes"].dropna()
    assert cwnd.max() > INITIAL_WINDOW_BYTES, f"{algorithm}'s cwnd never grew past the initial window"
    assert result.flows["bytes_delivered"].iloc[0] > 0
    if algorithm in MARKING_QUEUE:
        bottleneck = result.links[(result.links["link"] == "bottleneck") & (result.links["direction"] == "forward")]
        assert bottleneck["ecn_marks"].iloc[0] > 0, "the kernel's packets were not ECN-capable"
    assert not registered_now(algorithm)


def test_the_parameters_are_in_the_kernels_copy_of_the_object(tmp_path):
    params = {"abc_limit": 2, "freeze_when_not_cwnd_limited": True, "reduction": "rfc5681"}
    built = prepare(BpfPlan("newreno", params, "flows.0"), tmp_path)
    file_offset, symbols = bpf_build.symbols_in(built, ".rodata")
    written = built.read_bytes()[file_offset:file_offset + max(o + s for o, s in symbols.values())]
    loaded = bpf_load.register("newreno", built)
    try:
        in_kernel = bpf_load.section_bytes(loaded.name, ".rodata")
    finally:
        bpf_load.unregister(loaded.name)
    offset, size = symbols["param_abc_limit"]
    assert int.from_bytes(in_kernel[offset:offset + size], "little") == 2
    offset, size = symbols["param_freeze_when_not_cwnd_limited"]
    assert int.from_bytes(in_kernel[offset:offset + size], "little") == 1
    assert in_kernel[:len(written)] == written
    assert not registered_now("newreno")


def test_each_kind_of_parameter_is_encoded_in_its_globals_unit():
    assert bpf_build.encode("25ms", "duration_us", None) == 25_000
    assert bpf_build.encode("1.5s", "duration_us", None) == 1_500_000
    assert bpf_build.encode(0.7, 1_000, None) == 700
    assert bpf_build.encode("exit", None, ["exit", "ignore"]) == 0
    assert bpf_build.encode(True, None, None) == 1


def test_a_parameter_the_kernel_version_cannot_hold_is_refused_by_key():
    with pytest.raises(tcplab.ScenarioError,
                       match=r"flows\.0\.params\.reduction: tcplab's BPF newreno keeps reduction = \"rfc5681\".*not \"ns2_slowdown\""):
        tcplab.run(one_flow("newreno", 'params = { reduction = "ns2_slowdown" }'), backend="linux")
    assert not registered_now("newreno")


def test_two_parameter_sets_of_one_algorithm_are_refused():
    flows = '[[flows]]\ncc = "newreno"\n[[flows]]\ncc = "newreno"\nparams = { abc_limit = 2 }\n'
    with pytest.raises(tcplab.ScenarioError, match=r"flows\.1\.params: flows of 'newreno' with different params"):
        tcplab.run(scenario(flows, duration="1s"), backend="linux")


@pytest.mark.parametrize("cc, reason", [
    ("sdc", "Active Delay Control's sender holds each ACK"),
    ("python:reno:Reno", "a Python algorithm runs inside the simulator's process"),
])
def test_what_cannot_be_a_kernel_congestion_control_is_refused_with_the_reason(cc, reason, monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parent.parent / "examples" / "python_cc"))
    with pytest.raises(tcplab.ScenarioError, match=rf"flows\.0\.cc: '{cc}' cannot run on the Linux back-end: {reason}"):
        tcplab.run(one_flow(cc), backend="linux")


def broken_sources(tmp_path: Path, monkeypatch, body: str) -> None:
    """A sources folder whose newreno.bpf.c is ``body`` (with the real header)."""
    shutil.copy(bpf_build.HEADER, tmp_path / "tcplab_cc.h")
    (tmp_path / "newreno.bpf.c").write_text(body)
    monkeypatch.setattr(bpf_build, "SOURCES", tmp_path)
    monkeypatch.setattr(bpf_build, "HEADER", tmp_path / "tcplab_cc.h")


# Reads the socket's private area at an index the verifier cannot bound (the cwnd): it refuses
# the program at registration.
OUT_OF_BOUNDS = """#include "tcplab_cc.h"
TCPLAB_LICENSE;
SEC("struct_ops")
__u32 BPF_PROG(broken_ssthresh, struct sock *sk)
{
	return ((__u32 *)inet_csk(sk)->icsk_ca_priv)[tcp_sk(sk)->snd_cwnd];
}
SEC("struct_ops")
void BPF_PROG(broken_cong_avoid, struct sock *sk, __u32 ack, __u32 acked) {}
SEC("struct_ops")
__u32 BPF_PROG(broken_undo_cwnd, struct sock *sk) { return tcp_sk(sk)->snd_cwnd; }
SEC(".struct_ops")
struct tcp_congestion_ops tcplab_newreno = {
	.ssthresh = (void *)broken_ssthresh,
	.cong_avoid = (void *)broken_cong_avoid,
	.undo_cwnd = (void *)broken_undo_cwnd,
	.name = "tcplab_newreno",
};
"""


def test_a_verifier_rejection_names_the_algorithm_and_shows_the_verifiers_lines(tmp_path, monkeypatch):
    broken_sources(tmp_path, monkeypatch, OUT_OF_BOUNDS)
    with pytest.raises(BpfLoadError, match=r"the kernel refused tcplab's BPF 'newreno' \(tcplab_newreno\)") as refused:
        tcplab.run(one_flow("newreno"), backend="linux")
    assert "processed" in str(refused.value) or "R1" in str(refused.value), str(refused.value)
    assert leftovers() == NOTHING_LEFT and not registered_now("newreno")


def test_a_compiler_error_names_the_algorithm_and_shows_clangs_lines(tmp_path, monkeypatch):
    broken_sources(tmp_path, monkeypatch, '#include "tcplab_cc.h"\nthis is not C;\n')
    with pytest.raises(BpfBuildError, match=r"compiling tcplab's BPF 'newreno' \(newreno\.bpf\.c\) failed:\n.*error"):
        tcplab.run(one_flow("newreno"), backend="linux")


def test_without_clang_a_bpf_algorithm_is_refused_with_the_package_to_install(monkeypatch):
    real_which = shutil.which
    monkeypatch.setattr(bpf_build.shutil, "which", lambda tool: None if tool == "clang" else real_which(tool))
    with pytest.raises(BackendUnavailable, match=r"tcplab's BPF congestion controls need clang \(Debian package clang\)"):
        tcplab.run(one_flow("newreno"), backend="linux")


def test_the_cli_reports_a_refusal_without_a_traceback(tmp_path, monkeypatch):
    path = tmp_path / "broken.toml"
    path.write_text(one_flow("newreno"))
    # The CLI runs in a process of its own: the broken source reaches it through the module
    # path, a copy of the package whose bpf/ folder holds it.
    package = tmp_path / "package"
    shutil.copytree(Path(tcplab.__file__).parent, package / "tcplab", ignore=shutil.ignore_patterns("__pycache__"))
    (package / "tcplab/backends/linux/bpf/newreno.bpf.c").write_text(OUT_OF_BOUNDS)
    done = subprocess.run([sys.executable, "-m", "tcplab", "run", str(path), "--backend", "linux", "--quiet",
                           "--out", str(tmp_path / "out")], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(package)})
    assert done.returncode == 69, done.stderr
    assert done.stderr.startswith("error: the kernel refused tcplab's BPF 'newreno'") and "Traceback" not in done.stderr


def start_bpf_run(tmp_path: Path) -> subprocess.Popen:
    path = tmp_path / "scenario.toml"
    path.write_text(one_flow("newreno", duration="20s"))
    return subprocess.Popen([sys.executable, "-m", "tcplab", "run", str(path), "--backend", "linux", "--quiet",
                             "--out", str(tmp_path / "out")], stderr=subprocess.PIPE, text=True)


def wait_until_registered(process: subprocess.Popen) -> None:
    wait_for_endpoints(process)
    assert registered_now("newreno"), "the run's algorithm is not registered while it runs"


@pytest.mark.parametrize("interruption", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_run_unregisters_its_algorithm(tmp_path, interruption):
    process = start_bpf_run(tmp_path)
    wait_until_registered(process)
    process.send_signal(interruption)
    _, errors = process.communicate(timeout=30)
    assert process.returncode == 130, errors
    assert leftovers() == NOTHING_LEFT and not registered_now("newreno")


def test_a_run_whose_endpoint_dies_unregisters_its_algorithm(tmp_path):
    process = start_bpf_run(tmp_path)
    wait_until_registered(process)
    os.kill(wait_for_endpoints(process)[0], signal.SIGKILL)
    _, errors = process.communicate(timeout=30)
    assert process.returncode == 69, errors
    assert leftovers() == NOTHING_LEFT and not registered_now("newreno")


def test_lab_cleanup_unregisters_what_a_killed_run_left(tmp_path):
    before = build_directories()
    process = start_bpf_run(tmp_path)
    wait_until_registered(process)
    process.kill()
    process.wait(timeout=10)
    assert registered_now("newreno"), "a SIGKILLed run leaves its algorithm registered"
    left = build_directories() - before
    assert len(left) == 1, left
    done = subprocess.run([sys.executable, "-m", "tcplab", "lab", "cleanup"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "unregistered" in done.stderr and "tcplab_newreno" in done.stderr, done.stderr
    assert not left & build_directories(), "the killed run's build directory is removed"
    deadline = time.monotonic() + 10
    while registered_now("newreno") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert leftovers() == NOTHING_LEFT and not registered_now("newreno")
