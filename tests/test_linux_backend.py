"""The Linux back-end on this machine's kernel: real namespaces, kernel TCP and the link emulator.
They need root, as the whole suite does (scripts/test.sh refuses to start without it; CI runs as
root); each run takes its duration in real time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest

import tcplab
from tcplab.backends.linux import lab
from tcplab.backends.linux.build_directory import PREFIX as BUILD_DIRECTORY_PREFIX

ENDPOINT_PROGRAM = "tcplab/backends/linux/endpoint.py"
RATE_BPS = 50_000_000


def scenario(flows: str, duration: str = "5s") -> str:
    return f"""
name = "linux-test"
[simulation]
duration = "{duration}"
sample_interval = "100ms"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "50Mbps", delay = "18ms", buffer = "1BDP" }}
access = {{ rate = "1Gbps", delay = "1ms", buffer = "1000p" }}
{flows}
"""


TWO_FLOWS = scenario('[[flows]]\ncc = "cubic"\n[[flows]]\ncc = "reno"\n')


def leftovers() -> dict[str, list]:
    """tcplab's namespaces, TUN devices and endpoint processes on this machine."""
    processes = subprocess.run(["pgrep", "-f", ENDPOINT_PROGRAM], capture_output=True, text=True).stdout.split()
    return {"namespaces": lab.namespaces(), "devices": lab.tun_devices("tl"), "processes": processes}


NOTHING_LEFT = {"namespaces": [], "devices": [], "processes": []}


@pytest.fixture(scope="module")
def two_flows() -> tcplab.Result:
    assert leftovers() == NOTHING_LEFT, "an earlier run left something behind"
    return tcplab.run(TWO_FLOWS, backend="linux")


def test_a_two_flow_run_returns_every_table_with_the_simulators_columns(two_flows):
    simulated = tcplab.run(TWO_FLOWS, duration="1s")
    for table in ("flows", "links", "timeseries", "queues", "events"):
        assert list(getattr(two_flows, table).columns) == list(getattr(simulated, table).columns), table
    assert two_flows.summary["backend"] == "linux"
    assert two_flows.summary["kernel"] == os.uname().release
    assert len(two_flows.timeseries) == 2 * 51, "both flows at 0, 0.1, ..., 5 s"


@pytest.mark.parametrize("backend", ["simulator", "linux"])
def test_the_delivery_rate_is_sampled_and_within_the_bottleneck(backend, two_flows):
    result = two_flows if backend == "linux" else tcplab.run(TWO_FLOWS)
    series = result.timeseries
    settled = series[series["time_s"] >= 1.0]["delivery_rate_bps"]
    assert settled.notna().all(), "every flow has had a rate sample after a second"
    # A sample spans about an RTT of ACKs, so it can exceed the link a little (ACKs bunch up), but
    # not by much, and each of two flows sharing it gets a real part of it.
    assert settled.median() > 5e6 and settled.max() < 1.5 * RATE_BPS
    assert series[series["time_s"] == 0.0]["delivery_rate_bps"].isna().all(), "no sample before any ACK"


def test_a_two_flow_run_has_sane_values(two_flows):
    flows = two_flows.flows
    assert list(flows["cc"]) == ["cubic", "reno"]
    assert (flows["goodput_bps"] > 1e6).all(), "both flows moved data"
    assert flows["goodput_bps"].sum() <= RATE_BPS, "together no more than the bottleneck"
    assert (flows["rtt_min_ms"] >= flows["base_rtt_ms"]).all(), "no RTT below the propagation delay"
    assert (flows["rtt_p50_ms"] >= flows["base_rtt_ms"]).all()
    assert (flows["one_way_delay_p50_ms"] >= flows["base_rtt_ms"] / 2).all()
    bottleneck = two_flows.links.set_index(["link", "direction"]).loc[("bottleneck", "forward")]
    assert bottleneck["utilization"] > 0.8
    assert bottleneck["max_queue_bytes"] <= 250_000, "the 1-BDP buffer holds at most 250 KB"
    # Every data packet the links discarded was retransmitted (or was in the last RTT).
    assert (flows["packets_lost"] <= flows["retransmitted_segments"] + 20).all()
    assert two_flows.summary["emulator_write_failures"] == 0
    assert two_flows.summary["emulator_largest_packet_bytes"] == 1500, "MSS 1448 + 52 header bytes; no offload"
    # Both senders measured how late their first data left: some scheduling delay, not seconds.
    summary = two_flows.summary
    assert 0 <= summary["start_lateness_p50_ms"] <= summary["start_lateness_max_ms"] < 100
    series = two_flows.timeseries.dropna(subset=["srtt_ms"])
    assert (series["srtt_ms"] >= 40.0).all() and (series["cwnd_bytes"] > 0).all()


def test_a_finite_flow_delivers_exactly_its_bytes():
    size = 3_000_000
    result = tcplab.run(scenario(f'[[flows]]\ncc = "cubic"\nsize = "{size}B"\n', duration="4s"), backend="linux")
    flow = result.flows.iloc[0]
    assert flow["bytes_delivered"] == size
    assert 0.08 < flow["completion_time_s"] < 4.0, "at least two RTTs (handshake, first window), within the run"


def test_start_times_and_rate_limits_are_the_scenarios():
    flows = '[[flows]]\ncc = "cubic"\nrate = "5Mbps"\n[[flows]]\ncc = "reno"\nstart = "1500ms"\n'
    result = tcplab.run(scenario(flows, duration="4s"), backend="linux")
    limited, late = result.flows.iloc[0], result.flows.iloc[1]
    assert 4.5e6 < limited["goodput_bps"] <= 5.05e6, "the application writes at 5 Mbit/s"
    series = result.timeseries[result.timeseries["flow_id"] == 1]
    assert series[series["time_s"] < 1.5]["cwnd_bytes"].isna().all(), "no window before the start"
    assert series[series["time_s"] < 1.5]["throughput_bps"].eq(0).all()
    assert late["start_s"] == 1.5 and late["goodput_bps"] > 10e6
    # Each sender's SYN (its connect()) and first data are events, at or a little after its start.
    events = result.events[result.events["event"].isin(["connect", "first_write"])]
    starts = events[events["flow_id"] == 1].set_index("event")["time_s"]
    assert 1.5 <= starts["connect"] < 1.6 and starts["connect"] < starts["first_write"] < 1.7
    assert sorted(events["flow_id"]) == [0, 0, 1, 1]


def red_with_ecn_on_the_hosts(ecn: bool) -> str:
    flows = f'[tcp]\necn = {str(ecn).lower()}\n[[flows]]\ncc = "cubic"\ncount = 2\n'
    return scenario(flows, duration="4s").replace(
        'buffer = "1BDP" }', 'buffer = "1BDP", queue = { kind = "red", ecn = true } }')


@pytest.mark.parametrize("ecn", [True, False], ids=["ecn-negotiated", "ecn-off"])
def test_red_reads_the_real_packets_ecn_field(ecn):
    result = tcplab.run(red_with_ecn_on_the_hosts(ecn), backend="linux")
    bottleneck = result.links.set_index(["link", "direction"]).loc[("bottleneck", "forward")]
    if ecn:
        # The kernel sends new data ECN-capable, so RED marks it; only retransmissions, which
        # RFC 3168 sends not ECN-capable, can be dropped early.
        assert bottleneck["ecn_marks"] > 10
        assert bottleneck["early_drops"] <= result.flows["retransmitted_segments"].sum()
    else:
        # Not ECN-capable packets: the same queue drops where it would have marked.
        assert bottleneck["ecn_marks"] == 0 and bottleneck["early_drops"] > 0
    assert result.flows["goodput_bps"].sum() > RATE_BPS / 2


def test_pie_runs_in_the_emulator_and_marks_the_kernels_ecn_capable_packets():
    # The emulator builds its queues with the simulator's code, PIE included. A deep buffer: PIE,
    # not the buffer, decides (measured: 12 marks, no drop, 8.7 ms mean queueing delay in 4 s).
    text = scenario('[tcp]\necn = true\n[[flows]]\ncc = "cubic"\ncount = 2\n', duration="4s").replace(
        'buffer = "1BDP" }', 'buffer = "20BDP", queue = { kind = "pie", ecn = true } }')
    result = tcplab.run(text, backend="linux")
    bottleneck = result.links.set_index(["link", "direction"]).loc[("bottleneck", "forward")]
    assert bottleneck["ecn_marks"] > 0
    assert bottleneck["early_drops"] <= result.flows["retransmitted_segments"].sum()
    assert result.flows["goodput_bps"].sum() > RATE_BPS / 2


def test_the_emulators_delay_on_an_idle_link_is_within_a_millisecond_of_the_configured_one():
    # 100 small datagrams a second: every link idle when each one arrives. Configured one-way
    # delay: 1 + 18 + 1 ms of propagation, plus 200 bytes' transmission at 1 Gbit/s twice and at
    # 50 Mbit/s once.
    udp = '[[flows]]\nprotocol = "udp"\nrate = "160kbps"\npacket_size = "200B"\n'
    result = tcplab.run(scenario(udp, duration="3s"), backend="linux")
    configured_ms = 20.0 + 2 * 200 * 8 / 1e9 * 1e3 + 200 * 8 / RATE_BPS * 1e3
    flow = result.flows.iloc[0]
    assert flow["packets_sent"] > 250 and flow["packets_lost"] == 0
    assert abs(flow["one_way_delay_p50_ms"] - configured_ms) <= 1.0
    assert abs(flow["one_way_delay_p95_ms"] - configured_ms) <= 1.0
    assert result.summary["emulator_lateness_p99_ms"] <= 1.0


def test_a_normal_run_leaves_nothing(two_flows):
    assert leftovers() == NOTHING_LEFT


def start_cli_run(tmp_path: Path) -> subprocess.Popen:
    path = tmp_path / "scenario.toml"
    path.write_text(scenario('[[flows]]\ncc = "cubic"\n', duration="20s"))
    return subprocess.Popen([sys.executable, "-m", "tcplab", "run", str(path), "--backend", "linux", "--quiet",
                             "--out", str(tmp_path / "out")], stderr=subprocess.PIPE, text=True)


def wait_for_endpoints(process: subprocess.Popen) -> list[int]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and process.poll() is None:
        pids = [pid for namespace in lab.namespaces() for pid in lab.processes_in(namespace)]
        if len(pids) >= 2:
            time.sleep(1.0)  # into the run
            return pids
        time.sleep(0.1)
    raise AssertionError(f"the run's endpoints did not start: {process.stderr.read() if process.poll() else ''}")


@pytest.mark.parametrize("interruption", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_run_leaves_nothing(tmp_path, interruption):
    process = start_cli_run(tmp_path)
    wait_for_endpoints(process)
    process.send_signal(interruption)
    _, errors = process.communicate(timeout=30)
    assert process.returncode == 130, errors
    assert leftovers() == NOTHING_LEFT


def test_a_library_caller_ended_by_sigterm_leaves_nothing(tmp_path):
    # `tcplab.run` inside a program that keeps Python's default SIGTERM action (a test runner, a
    # script): the process still ends by the signal, after the run's clean-up.
    path = tmp_path / "scenario.toml"
    path.write_text(scenario('[[flows]]\ncc = "cubic"\n', duration="20s"))
    program = f"import tcplab; tcplab.run({str(path)!r}, backend='linux')"
    build_directories = set(Path(tempfile.gettempdir()).glob(f"{BUILD_DIRECTORY_PREFIX}*"))
    process = subprocess.Popen([sys.executable, "-c", program], stderr=subprocess.PIPE, text=True)
    wait_for_endpoints(process)
    process.send_signal(signal.SIGTERM)
    _, errors = process.communicate(timeout=30)
    assert process.returncode == -signal.SIGTERM, errors
    assert leftovers() == NOTHING_LEFT
    assert set(Path(tempfile.gettempdir()).glob(f"{BUILD_DIRECTORY_PREFIX}*")) == build_directories


def test_a_run_whose_flow_process_is_killed_fails_clearly_and_leaves_nothing(tmp_path):
    process = start_cli_run(tmp_path)
    endpoints = wait_for_endpoints(process)
    os.kill(endpoints[0], signal.SIGKILL)
    _, errors = process.communicate(timeout=30)
    assert process.returncode == 69
    assert "exited with status -9 before the end of the run" in errors and "Traceback" not in errors
    assert leftovers() == NOTHING_LEFT


def build_directories() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob(f"{BUILD_DIRECTORY_PREFIX}*"))


def test_lab_cleanup_removes_what_a_killed_run_left(tmp_path):
    before = build_directories()
    process = start_cli_run(tmp_path)
    wait_for_endpoints(process)
    process.kill()  # no clean-up of its own: namespaces stay (its endpoints and devices die with it)
    process.wait(timeout=10)
    time.sleep(0.5)
    assert lab.namespaces(), "a SIGKILLed run leaves its namespaces"
    left = build_directories() - before
    assert [d.name.startswith(f"{BUILD_DIRECTORY_PREFIX}{process.pid}-") for d in left] == [True], left
    done = subprocess.run([sys.executable, "-m", "tcplab", "lab", "cleanup"], capture_output=True, text=True)
    assert done.returncode == 0 and "removed 2 namespaces" in done.stderr, done.stderr
    assert str(next(iter(left))) in done.stderr, done.stderr
    assert leftovers() == NOTHING_LEFT and not left & build_directories()


def test_a_custom_topology_is_refused():
    text = """
[simulation]
duration = "1s"
[topology]
kind = "custom"
nodes = ["a", "b"]
links = [{ from = "a", to = "b", rate = "10Mbps", delay = "5ms" }]
[[flows]]
cc = "cubic"
from = "a"
to = "b"
"""
    with pytest.raises(tcplab.ScenarioError, match="topology.kind: the Linux back-end runs dumbbell and chain"):
        tcplab.run(text, backend="linux")


def test_compare_backends_writes_the_table_and_the_overlay(tmp_path):
    path = tmp_path / "two.toml"
    path.write_text(scenario('[[flows]]\ncc = "cubic"\n[[flows]]\ncc = "bbr"\n', duration="3s"))
    done = subprocess.run([sys.executable, "-m", "tcplab", "compare-backends", str(path), "--out", str(tmp_path / "cmp")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "| cubic-0 | cubic |" in done.stdout and "| all flows |" in done.stdout
    table = pd.read_csv(tmp_path / "cmp" / "comparison.csv")
    assert list(table["flow"]) == ["cubic-0", "bbr-1", "all flows"]
    assert table["goodput_mbps_linux"].iloc[-1] <= 50
    assert (tmp_path / "cmp" / "overlay.png").stat().st_size > 10_000
    assert leftovers() == NOTHING_LEFT


def test_the_shipped_scenario_runs_on_the_kernel_and_reports(tmp_path):
    scenario_file = Path(__file__).resolve().parent.parent / "scenarios" / "cubic-vs-reno.toml"
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "tcplab", "run", str(scenario_file), "--backend", "linux",
                           "--set", "simulation.duration=2s", "--out", str(out)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "cubic-0" in done.stdout and "reno-1" in done.stdout
    report = subprocess.run([sys.executable, "-m", "tcplab", "report", str(out)], capture_output=True, text=True,
                            timeout=120)
    assert report.returncode == 0, report.stderr
    page = (out / "report.html").read_text(encoding="utf-8")
    assert f"on the Linux kernel {os.uname().release}" in page and "events None" not in page


def test_without_root_the_run_is_refused_with_what_is_missing(monkeypatch):
    from tcplab.backends.linux import BackendUnavailable

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(BackendUnavailable, match=r"the Linux back-end needs root \(network namespaces and TUN devices"):
        tcplab.run(TWO_FLOWS, backend="linux")


def test_an_unknown_backend_is_refused():
    with pytest.raises(tcplab.ScenarioError,
                       match="backend: 'omnet' is not a back-end; use 'simulator', 'linux', 'ns2' or 'ns3'"):
        tcplab.run(TWO_FLOWS, backend="omnet")
