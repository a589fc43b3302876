"""Issue 32: the simulator's `linux` profile against this machine's kernel where a short run
decides, the fidelity matrix's bench (benches/linux_fidelity.py) in its quick form, and the start
sensitivity bench (benches/start_sensitivity.py). Real kernel runs (root, as the whole suite)."""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import tcplab

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benches"))

import linux_fidelity  # noqa: E402  (benches/ is not a package)
import start_sensitivity  # noqa: E402

ONE_MEGABYTE = """
name = "one-megabyte"
[simulation]
duration = "3s"
sample_interval = "10ms"
[topology]
kind = "dumbbell"
bottleneck = { rate = "50Mbps", delay = "18ms", buffer = "1BDP" }
access = { rate = "1Gbps", delay = "1ms", buffer = "10000p" }
[[flows]]
cc = "cubic"
size = "1MB"
"""


def test_a_one_megabyte_transfer_completes_in_the_kernels_time():
    # A handshake (40 ms) and six slow-start rounds: about 0.3 s on both engines. The kernel is
    # not deterministic: the median of three runs.
    simulated = tcplab.run(ONE_MEGABYTE).flows["completion_time_s"].iloc[0]
    kernel = statistics.median(
        tcplab.run(ONE_MEGABYTE, backend="linux").flows["completion_time_s"].iloc[0] for _ in range(3))
    assert 0.2 < simulated < 0.5, simulated
    assert abs(kernel / simulated - 1) <= 0.10, f"simulator {simulated:.3f} s, kernel {kernel:.3f} s"


def test_the_verdicts_apply_each_metrics_tolerance():
    runs = pd.DataFrame([
        {"case": "c", "engine": "simulator", "goodput_mbps": 40.0, "retransmitted_segments": 10.0, "jain_index": 0.70,
         "slow_start_exit_s": 0.20, "rtt_p50_ms": 50.0},
        {"case": "c", "engine": "simulator", "goodput_mbps": 42.0, "retransmitted_segments": 12.0, "jain_index": 0.72,
         "slow_start_exit_s": 0.20, "rtt_p50_ms": 50.0},
        {"case": "c", "engine": "linux", "goodput_mbps": 43.0, "retransmitted_segments": 30.0, "jain_index": 0.80,
         "slow_start_exit_s": 0.30, "rtt_p50_ms": 70.0},
        {"case": "c", "engine": "linux", "goodput_mbps": 43.0, "retransmitted_segments": 32.0, "jain_index": 0.99,
         "slow_start_exit_s": 0.21, "rtt_p50_ms": 90.0},
    ])
    for metric in linux_fidelity.TOLERANCES:
        if metric not in runs:
            runs[metric] = float("nan")
    table = linux_fidelity.verdicts(runs).set_index("metric")
    # 43 against 41: +4.9%, within 5%.
    assert table.loc["goodput_mbps", "within"] == "yes"
    # 31 against 11: +20 segments is within the 20-segment floor although +182%.
    assert table.loc["retransmitted_segments", "within"] == "yes"
    # The kernel's own runs differ by 0.19 > 0.05: no verdict on Jain's index (issue 32's rule).
    assert table.loc["jain_index", "within"] == "kernel runs disagree"
    # Slow-start exit 0.20 against a mean of 0.255 (+27%): a miss against the mean, but the
    # kernel's runs differ by 0.09 (> 15% of their mean) and one of them is within 15% of 0.20.
    assert table.loc["slow_start_exit_s", "within"] == "kernel runs disagree"
    # RTT 50 against 70 and 90 ms: the kernel's runs differ too, but the simulator is far from both.
    assert table.loc["rtt_p50_ms", "within"] == "no"
    assert "fct_p50_s" not in table.index, "a metric neither engine measured is left out"
    runs.loc[runs["engine"] == "linux", "goodput_mbps"] = 44.0
    assert linux_fidelity.verdicts(runs).set_index("metric").loc["goodput_mbps", "within"] == "no"


def test_a_what_if_setting_is_a_tcp_option_or_a_dotted_scenario_key():
    scenario = linux_fidelity.bulk_scenario("bbr", 1, 0.5, 40)
    jitter = {"distribution": "harq", "p": 0.01}
    with_gso = linux_fidelity.with_setting(scenario, "gso", True)
    with_jitter = linux_fidelity.with_setting(scenario, "topology.access.reverse.jitter", jitter)
    assert with_gso["tcp"] == {"gso": True}
    assert with_jitter["topology"]["access"] == {"rate": "1Gbps", "delay": "1ms", "buffer": "10000p",
                                                 "reverse": {"jitter": jitter}}
    assert "reverse" not in scenario["topology"]["access"] and "tcp" not in scenario, "the case is left as it is"


def test_the_sensitivity_bench_starts_every_flow_late_by_less_than_the_bound():
    scenario = start_sensitivity.bulk_case("cubic-4f-1bdp-40ms")
    assert scenario == linux_fidelity.bulk_scenario("cubic", 4, 1, 40)
    once, again, other = (start_sensitivity.started_late(scenario, seed, 1.0) for seed in (1, 1, 2))
    assert once == again and once != other, "a seed's draws repeat; another seed's differ"
    shifts = [start_sensitivity.start_ms(late) - start_sensitivity.start_ms(flow)
              for late, flow in zip(other["flows"], scenario["flows"])]
    assert [start_sensitivity.start_ms(flow) for flow in scenario["flows"]] == [0, 2, 4, 6]
    assert all(0 <= shift < 1.0 for shift in shifts) and len(set(shifts)) == 4, "each flow draws its own"


def test_the_sensitivity_bench_prints_each_metric_beside_the_kernels_runs():
    runs = pd.DataFrame([{"case": "reno-4f-8bdp-10ms", "engine": "linux", "run": 1, "jain_index": 0.9,
                          **{m: 1.0 for m in start_sensitivity.METRICS if m != "jain_index"}}])
    table = start_sensitivity.spread("reno-4f-8bdp-10ms", 2, 1.0, runs)
    assert list(table["metric"]) == start_sensitivity.METRICS
    jain = table.set_index("metric").loc["jain_index"]
    assert jain["kernel_mean"] == 0.9 and jain["late_min"] <= jain["late_mean"] <= jain["late_max"] <= 1.0
    completed = subprocess.run([sys.executable, str(ROOT / "benches" / "start_sensitivity.py"), "--runs", "0"],
                               capture_output=True, text=True)
    assert completed.returncode == 2 and "--runs 0" in completed.stderr


def test_the_quick_matrix_runs_on_both_engines_and_writes_its_table(tmp_path, monkeypatch):
    # The page is a copy: the quick matrix's one case must not replace the committed tables.
    page = tmp_path / "page.md"
    page.write_text(f"before\n{linux_fidelity.TABLES_BEGIN}\nold\n{linux_fidelity.TABLES_END}\nafter\n")
    monkeypatch.setattr(linux_fidelity, "OUT", tmp_path)
    monkeypatch.setattr(linux_fidelity, "PAGE", page)
    monkeypatch.setattr(sys, "argv", ["linux_fidelity.py", "--quick", "--kernel-runs", "1", "--seeds", "1"])
    assert linux_fidelity.main() == 0
    written = page.read_text()
    assert written.startswith("before\n") and written.endswith("after\n") and "\nold\n" not in written
    assert "| cubic-1f-8bdp-40ms |" in written
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert sorted(runs["engine"].unique()) == ["linux", "simulator"]
    cases = pd.read_csv(tmp_path / "cases.csv")
    bulk = cases[cases["case"] == "cubic-1f-8bdp-40ms"].set_index("metric")
    # Both engines moved about as much data: a one-flow CUBIC run on 8 BDP keeps the link busy.
    assert 40 < bulk.loc["goodput_mbps", "simulator"] < 50 and 40 < bulk.loc["goodput_mbps", "kernel"] < 50
    assert (tmp_path / "matrix.png").stat().st_size > 10_000
    assert "cubic-1f-8bdp-40ms" in (tmp_path / "matrix.md").read_text()


def test_what_if_reruns_the_simulator_with_an_option_against_the_saved_kernel_runs(tmp_path, monkeypatch, capsys):
    # The saved kernel runs of one case, and the simulator rerun with GSO packets: the case's
    # median RTT comes within the target (docs/linux-fidelity.md, "GSO packets").
    saved = pd.read_csv(ROOT / "docs" / "linux-fidelity" / "runs.csv")
    saved[saved["case"] == "reno-1f-8bdp-150ms"].to_csv(tmp_path / "runs.csv", index=False)
    matrix_runs = (tmp_path / "runs.csv").read_bytes()
    monkeypatch.setattr(linux_fidelity, "OUT", tmp_path)
    monkeypatch.setattr(sys, "argv", ["linux_fidelity.py", "--what-if", "gso=true", "--only", "reno-1f-8bdp-150ms"])
    assert linux_fidelity.main() == 0
    table = pd.read_csv(tmp_path / "what-if-gso-true.csv").set_index("metric")
    rtt = table.loc["rtt_p50_ms"]
    assert (rtt["within_matrix"], rtt["within_what_if"]) == ("no", "yes")
    assert abs(rtt["simulator_what_if"] - rtt["kernel"]) < 0.1 * rtt["kernel"]
    assert "reno-1f-8bdp-150ms, median smoothed RTT" in capsys.readouterr().out
    assert (tmp_path / "runs.csv").read_bytes() == matrix_runs, "the matrix's runs are left as they are"


@pytest.mark.parametrize("option, message", [("gso=maybe", "TOML value"), ("gsx=true", "unknown field `gsx`")])
def test_what_if_names_a_bad_option(option, message, tmp_path, monkeypatch, capsys):
    (tmp_path / "runs.csv").write_text((ROOT / "docs" / "linux-fidelity" / "runs.csv").read_text())
    monkeypatch.setattr(linux_fidelity, "OUT", tmp_path)
    monkeypatch.setattr(sys, "argv", ["linux_fidelity.py", "--what-if", option, "--only", "reno-1f-8bdp-150ms"])
    assert linux_fidelity.main() == 2
    assert message in capsys.readouterr().err


def test_a_multi_flow_case_starts_its_flows_the_interval_apart():
    # Flows started in the same nanosecond keep their slow-start rounds in lockstep, which the
    # kernel's endpoints do not (docs/linux-fidelity.md): the matrix spaces them instead.
    scenario = linux_fidelity.bulk_scenario("reno", 4, 1, 40)
    scenario["simulation"]["duration"] = "100ms"
    flows = tcplab.run(scenario).flows
    interval_s = linux_fidelity.START_INTERVAL_MS / 1e3
    assert interval_s > 0
    assert list(flows["start_s"]) == pytest.approx([i * interval_s for i in range(4)])


def test_a_report_before_any_run_is_a_clear_error(tmp_path):
    program = f"import sys; sys.path.insert(0, {str(ROOT / 'benches')!r}); import linux_fidelity as f; " \
              f"from pathlib import Path; f.OUT = Path({str(tmp_path)!r}); sys.argv = ['x', '--report']; sys.exit(f.main())"
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert "no runs" in done.stderr and "Traceback" not in done.stderr


def test_an_endpoints_report_is_read_when_its_descriptor_is_above_1024():
    # A run of a few hundred flows holds over a thousand pipes (three per endpoint process):
    # the orchestrator must wait on them with poll, which select() cannot (its limit is 1024).
    import os
    import time

    from tcplab.backends.linux import lab, run

    filler = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        process = subprocess.Popen([sys.executable, "-c", "print('{\"bytes\": 1}')"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert process.stdout.fileno() > 1024
        endpoint = run.Endpoint(0, "receiver", lab.Host("d0", "tun0", "10.0.0.1", "none"), process)
        assert run._report(endpoint, time.monotonic() + 5) == {"bytes": 1}
        process.stdin.close()
        process.wait()
    finally:
        for descriptor in filler:
            os.close(descriptor)


def test_the_hystart_replay_finds_the_simulators_own_exit_in_its_capture(tmp_path):
    # scripts/hystart_replay.py is how the slow-start difference was found on the kernel's
    # capture; on a capture of the simulator's sender it must find the exit the simulator made.
    scenario = ONE_MEGABYTE.replace('size = "1MB"', "").replace("buffer = \"1BDP\"", "buffer = \"8BDP\"")
    scenario = scenario.replace('duration = "3s"', 'duration = "0.6s"\ncapture = ["access-s0"]')
    result = tcplab.run(scenario)
    result.save(tmp_path / "out")
    merged = tmp_path / "sender.pcap"
    subprocess.run(["mergecap", "-w", str(merged), str(tmp_path / "out" / "access-s0-forward.pcap"),
                    str(tmp_path / "out" / "access-s0-reverse.pcap")], check=True, timeout=60)
    syn_port = subprocess.run(["tshark", "-r", str(merged), "-c", "1", "-T", "fields", "-e", "tcp.srcport"],
                              capture_output=True, text=True, check=True, timeout=60).stdout.strip()

    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "hystart_replay.py"), str(merged), syn_port],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    last = out.strip().splitlines()[-1]
    rule, cwnd = last.split()[0], int(last.rsplit("about ", 1)[1].split()[0])
    series = result.timeseries
    ssthresh_segments = series[series["ssthresh_bytes"].notna()]["ssthresh_bytes"].iloc[0] / 1448
    assert rule == "ACK", last
    assert abs(cwnd - ssthresh_segments) <= 3, (cwnd, ssthresh_segments)
