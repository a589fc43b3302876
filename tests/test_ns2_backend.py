"""The ns-2 back-end on Debian's real ns-2.35 (`apt-get install ns2`, which scripts/test.sh does):
short scenarios, their tables checked against conservation and against ns-2's own packet trace,
and the refusals of what ns-2 cannot express."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import tcplab
from tcplab.api import _prepare
from tcplab.backends.ns2 import Ns2Unavailable
from tcplab.backends.ns2.run import run_on_ns2


def scenario(flows: str, bottleneck: str = 'rate = "10Mbps", delay = "20ms", buffer = "30p"', duration: str = "10s",
             tcp: str = 'profile = "ns2"') -> str:
    return f"""
name = "ns2-test"
[simulation]
duration = "{duration}"
sample_interval = "100ms"
[topology]
kind = "dumbbell"
bottleneck = {{ {bottleneck} }}
access = {{ rate = "100Mbps", delay = "1ms", buffer = "1000p" }}
[tcp]
{tcp}
{flows}
"""


# ns-2's one-way agents reduce with slowdown()'s arithmetic, newreno's "ns2_slowdown".
NS2_NEWRENO = 'cc = "newreno"\nparams = { reduction = "ns2_slowdown" }\n'
TWO_NEWRENO = scenario(f'[[flows]]\n{NS2_NEWRENO}count = 2\nstart_spread = "1s"\n',
                       tcp='profile = "ns2"\nreceive_window = "100000B"')


def conserved(links: pd.DataFrame) -> None:
    """Every packet offered to a queue left it, was dropped or is still there."""
    for row in links.to_dict(orient="records"):
        assert row["offered_packets"] == row["transmitted_packets"] + row["queue_drops"] + row["queued_packets"], row


def test_two_flows_fill_every_table_and_conserve_packets():
    result = tcplab.run(TWO_NEWRENO, backend="ns2")
    assert result.summary["backend"] == "ns2" and result.summary["engine"] == "ns-2.35"
    flows, links = result.flows, result.links
    assert list(flows["name"]) == ["newreno-0", "newreno-1"]
    assert (flows["bytes_delivered"] > 1_000_000).all()
    assert (flows["bytes_delivered"] <= flows["bytes_sent"]).all()
    # A window of 100 packets on a 30-packet buffer: losses, and retransmissions to repair them.
    bottleneck = links[(links["link"] == "bottleneck") & (links["direction"] == "forward")].iloc[0]
    assert bottleneck["queue_drops"] > 0 and flows["retransmitted_segments"].sum() >= bottleneck["queue_drops"] * 0.5
    assert 0.5 < bottleneck["utilization"] <= 1.0
    assert 0 < bottleneck["queue_delay_mean_ms"] <= 30 * 1040 * 8 / 10e6 * 1000 + 1e-9
    conserved(links)
    # Samples at 0, 0.1 s, ... 10 s for each flow, as the simulator's.
    assert len(result.timeseries) == 2 * 101
    assert result.timeseries["cwnd_bytes"].dropna().gt(0).all()
    assert len(result.queues) == len(links) * 101


def test_link_counters_agree_with_ns2s_own_trace(tmp_path):
    """The QueueMonitor counts the tables read are checked against the trace ns-2 writes for the
    same link ('+' enqueue, 'd' drop, '-' dequeue lines)."""
    keep = tmp_path / "ns2"
    run_on_ns2(_prepare(TWO_NEWRENO, {}, None), keep=keep)
    script = (keep / "scenario.tcl").read_text()
    # The bottleneck's forward direction is the first simplex link: nodes 0 -> 1.
    traced = script.replace("$ns run", f"$ns trace-queue $n(0) $n(1) [open {{{keep / 'trace.tr'}}} w]\n$ns run")
    (keep / "traced.tcl").write_text(traced)
    subprocess.run(["ns", str(keep / "traced.tcl")], check=True, capture_output=True, timeout=120)
    events = [line.split()[0] for line in (keep / "trace.tr").read_text().splitlines()]
    final = next(line.split() for line in (keep / "samples.txt").read_text().splitlines() if line.startswith("L 0 "))
    arrivals, departures, drops = int(final[2]), int(final[4]), int(final[6])
    assert events.count("+") == arrivals
    assert events.count("-") == departures
    assert events.count("d") == drops > 0


def test_red_with_ecn_marks_and_drops_early():
    text = scenario(f'[[flows]]\n{NS2_NEWRENO}count = 4\n',
                    bottleneck='rate = "5Mbps", delay = "20ms", buffer = "60p", '
                               'queue = { kind = "red", min_th = "5p", max_th = "15p", ecn = true }',
                    tcp='profile = "ns2"\nreceive_window = "200000B"\necn = true\necn_response = "rfc3168"')
    links = tcplab.run(text, backend="ns2").links
    bottleneck = links.iloc[0]
    assert bottleneck["ecn_marks"] > 0
    conserved(links)


def test_red_in_byte_mode_on_a_byte_buffer_conserves_packets():
    text = scenario(f'[[flows]]\n{NS2_NEWRENO}count = 3\n',
                    bottleneck='rate = "5Mbps", delay = "20ms", buffer = "60000B", '
                               'queue = { kind = "red", byte_mode = true, mean_packet_size = "1000B" }',
                    tcp='profile = "ns2"\nreceive_window = "200000B"')
    links = tcplab.run(text, backend="ns2").links
    assert links.iloc[0]["early_drops"] > 0
    conserved(links)


def test_chain_with_udp_cross_traffic_and_the_linux_agent():
    text = """
name = "ns2-chain"
[simulation]
duration = "5s"
[topology]
kind = "chain"
routers = 3
hops = [{ rate = "20Mbps", delay = "10ms", buffer = "50p" }, { rate = "20Mbps", delay = "10ms", buffer = "50p" }]
access = { rate = "100Mbps", delay = "1ms", buffer = "1000p" }
[tcp]
profile = "ns2"
# As ns-2's Linux agent runs (docs/ns2-backend.md): window_ is a cwnd clamp and the first ssthresh.
recovery = "sack"
rack = true
rto_restart = "every_ack"
cwnd_clamp = 200
initial_ssthresh = 200
receive_window = "400000B"
[[flows]]
cc = "cubic"
from = "r0"
to = "r2"
# ns-2.35's CUBIC 2.1 module without timestamps (docs/algorithms/cubic.md).
params = { beta = 0.7998046875, hystart = false, cnt_before_loss = 50, cnt_before_loss_rule = "exactly", min_cnt = 1, max_increment = 0, rtt_lookahead = false, cnt_divisor = 1.9375 }
[[flows]]
protocol = "udp"
rate = "2Mbps"
packet_size = "500B"
from = "r1"
to = "r2"
"""
    result = tcplab.run(text, backend="ns2")
    flows = result.flows.set_index("protocol")
    assert flows.loc["tcp", "goodput_bps"] > 5e6
    # Constant bit rate: 2 Mbit/s of 500-byte datagrams for 5 s is 2,500 datagrams.
    assert abs(flows.loc["udp", "packets_sent"] - 2500) <= 1
    assert flows.loc["udp", "bytes_delivered"] > 0.9 * 2500 * 500
    conserved(result.links)


def test_timeouts_from_ns2s_event_trace_and_its_nrexmit():
    """Random loss of 5% makes timeouts; every expiry is an event, and ns-2's nrexmit_ (the
    expiries after a loss) is at most that."""
    text = scenario(f'[[flows]]\n{NS2_NEWRENO}',
                    bottleneck='rate = "10Mbps", delay = "20ms", buffer = "30p", forward = { loss = { model = "bernoulli", p = 0.05 } }')
    result = tcplab.run(text, backend="ns2")
    flow = result.flows.iloc[0]
    assert flow["timeouts"] >= flow["timeouts_after_loss"] > 0
    assert (result.events["event"] == "timeout").sum() == flow["timeouts"]
    assert result.links.iloc[0]["wire_losses"] > 0


def test_finite_and_restarting_transfers_complete():
    text = scenario(f'[[flows]]\n{NS2_NEWRENO}size = "50000B"\n'
                    f'[[flows]]\n{NS2_NEWRENO}size = "20000B"\nrestart = true\nstart = "1s"\n', duration="5s")
    result = tcplab.run(text, backend="ns2")
    finite = result.flows.iloc[0]
    assert finite["bytes_delivered"] == 50_000 and 0 < finite["completion_time_s"] < 2
    events = result.events["event"].value_counts()
    assert events["transfer_complete"] >= 3 and events["transfer_start"] >= events["transfer_complete"]
    assert result.flows.iloc[1]["bytes_delivered"] >= 20_000 * events["transfer_complete"]


@pytest.mark.parametrize(("change", "message"), [
    ({"topology.bottleneck.queue": "codel"}, r"topology.bottleneck.queue.kind: 'codel' cannot run on ns-2 \(ns-2.35 has DropTail and RED\)"),
    ({"topology.bottleneck.queue": "pie"}, r"topology.bottleneck.queue.kind: 'pie' cannot run on ns-2 \(ns-2.35 has DropTail and RED\)"),
    ({"flows.0.cc": "copa", "flows.0.params": {}}, r"flows.0.cc: 'copa' has no counterpart in ns-2.35"),
    ({"topology.bottleneck.queue": {"kind": "step", "threshold": "10p"}},
     r"topology.bottleneck.queue.kind: 'step' cannot run on ns-2 \(ns-2.35 has DropTail and RED, and its RED does not"),
    ({"topology.bottleneck.forward": {"jitter": {"distribution": "uniform", "max": "1ms"}}},
     r"topology.bottleneck.forward.jitter: the ns-2 back-end cannot express jitters"),
    ({"topology.bottleneck.forward": {"loss": {"model": "gilbert_elliott", "p_good_to_bad": 0.01, "p_bad_to_good": 0.5}}},
     r"loss.model: 'gilbert_elliott' cannot run on ns-2"),
    ({"flows.0.cc": "bbr", "flows.0.params": {}}, r"flows.0.cc: 'bbr' has no counterpart in ns-2.35"),
    ({"flows.0.cc": "cubic", "flows.0.params": {}}, r"flows.0.tcp.recovery: 'newreno' with cc 'cubic': ns-2 runs cubic only in its Linux agent"),
    ({"flows.0.cc": "cubic", "flows.0.params": {"cnt_divisor": 1.9375}, "tcp.recovery": "sack", "tcp.rack": True,
      "tcp.rto_restart": "every_ack", "tcp.cwnd_clamp": 20, "tcp.initial_ssthresh": 20, "tcp.receive_window": "40000B"},
     r"flows.0.params.cnt_before_loss: 20 cannot run on ns-2, whose cubic has 50 \(CUBIC 2.1 sets cnt = 50"),
    ({"tcp.profile": "linux"}, r"flows.0.tcp.rack: true cannot run on ns-2"),
    ({"tcp.delayed_ack": True, "tcp.delayed_ack_count": 3}, r"flows.0.tcp.delayed_ack_count: 3 cannot run on ns-2"),
    ({"flows.0.cc": "cubic", "flows.0.params": {}, "tcp.recovery": "sack", "tcp.rack": True,
      "tcp.rto_restart": "every_ack"}, r"flows.0.tcp.cwnd_clamp: unset cannot run on ns-2's Linux agent"),
    ({"flows.0.cc": "cubic", "flows.0.params": {}, "tcp.recovery": "sack", "tcp.rack": True,
      "tcp.rto_restart": "every_ack", "tcp.cwnd_clamp": 20, "tcp.initial_ssthresh": 20, "tcp.receive_window": "40000B"},
     r"flows.0.params.cnt_divisor: 1.0 cannot run on ns-2"),
    ({"tcp.receive_window": "20500B"}, r"flows.0.tcp.receive_window: 20500B is not a whole number of 1000B segments"),
    ({"simulation.capture": ["bottleneck"]}, r"simulation.capture: the ns-2 back-end writes no captures"),
    ({"flows.0.params": {}}, r"flows.0.params.reduction: \"rfc5681\" cannot run on ns-2"),
    ({"tcp.rto_formula": "rfc6298"}, r"flows.0.tcp.rto_formula: \"rfc6298\" cannot run on ns-2"),
    ({"tcp.ecn": True, "tcp.ect_retransmissions": False}, r"flows.0.tcp.ect_retransmissions: false cannot run"),
])
def test_what_ns2_cannot_express_is_refused_by_key(change, message):
    base = scenario(f'[[flows]]\n{NS2_NEWRENO}', duration="1s")
    with pytest.raises(tcplab.ScenarioError, match=message):
        tcplab.run(base, backend="ns2", set=change)


def test_two_paths_of_as_few_hops_are_refused():
    text = """
name = "square"
[simulation]
duration = "1s"
[topology]
kind = "custom"
nodes = ["a", "b", "c", "d"]
links = [
  { from = "a", to = "b", rate = "10Mbps", delay = "1ms" }, { from = "b", to = "d", rate = "10Mbps", delay = "1ms" },
  { from = "a", to = "c", rate = "10Mbps", delay = "2ms" }, { from = "c", to = "d", rate = "10Mbps", delay = "2ms" },
]
[tcp]
profile = "ns2"
[[flows]]
cc = "newreno"
params = { reduction = "ns2_slowdown" }
from = "a"
to = "d"
"""
    with pytest.raises(tcplab.ScenarioError, match=r"topology.links: a reaches d \(flow newreno-0\) over more than one path"):
        tcplab.run(text, backend="ns2")


def test_without_ns_the_run_is_refused_with_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(Ns2Unavailable, match=r"needs the 'ns' program: install Debian's ns-2.35 with 'apt-get install ns2'"):
        tcplab.run(TWO_NEWRENO, backend="ns2")
    path = tmp_path / "two.toml"
    path.write_text(TWO_NEWRENO)
    done = subprocess.run([sys.executable, "-m", "tcplab", "run", str(path), "--backend", "ns2"], capture_output=True,
                          text=True, timeout=60, env={"PATH": "/nonexistent", "HOME": str(tmp_path)})
    assert done.returncode != 0 and "apt-get install ns2" in done.stderr and "Traceback" not in done.stderr


def test_compare_backends_with_ns2_writes_both_tables(tmp_path):
    path = tmp_path / "two.toml"
    path.write_text(TWO_NEWRENO)
    done = subprocess.run([sys.executable, "-m", "tcplab", "compare-backends", str(path), "--backend", "ns2",
                           "--out", str(tmp_path / "cmp")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "| newreno-0 | newreno |" in done.stdout and "| bottleneck forward |" in done.stdout
    table = pd.read_csv(tmp_path / "cmp" / "comparison.csv")
    assert list(table["flow"]) == ["newreno-0", "newreno-1", "all flows"]
    assert re.search(r"goodput_mbps_ns2", ",".join(table.columns))
    # The same scenario on both engines: total goodput within 5% (docs/ns2-backend.md's first case).
    assert abs(table["goodput_mbps_difference"].iloc[-1]) < 0.05
    assert (tmp_path / "cmp" / "links.csv").exists() and (tmp_path / "cmp" / "overlay.png").stat().st_size > 10_000
    assert Path(tmp_path / "cmp" / "ns2" / "flows.parquet").exists()


def test_a_run_on_ns2_plots_and_reports_like_any_run(tmp_path):
    path = tmp_path / "two.toml"
    path.write_text(TWO_NEWRENO)
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "tcplab", "run", str(path), "--backend", "ns2", "--plots", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "simulated by ns-2.35" in done.stdout and "newreno-0" in done.stdout
    assert (out / "overview.png").stat().st_size > 10_000 and (out / "flows.parquet").exists()
    report = subprocess.run([sys.executable, "-m", "tcplab", "report", str(out)], capture_output=True, text=True,
                            timeout=120)
    assert report.returncode == 0, report.stderr
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "on ns-2.35 (the scenario as a TCL script)" in page and "events nan" not in page.lower()
