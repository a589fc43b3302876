"""Sweeps: points and runs, the tables they write, reruns, resuming, failures, and real Dask
schedulers and workers (local clusters and `dask scheduler` / `dask worker` processes on loopback)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import tcplab
from tcplab.cli import main
from tcplab.sweeps import load_sweep

QUICKSTART = str(Path(__file__).resolve().parent.parent / "scenarios" / "quickstart.toml")
BUFFERS = ["1BDP", "4BDP", "16BDP"]
ALGORITHMS = ["cubic", "bbr"]
SHORT = "simulation.duration=2s"


@pytest.fixture(scope="module")
def cli_sweep(tmp_path_factory) -> Path:
    """3 buffers x 2 algorithms x 2 runs of the quickstart, through the command line."""
    out = tmp_path_factory.mktemp("sweeps") / "cli"
    code = main([
        "sweep", QUICKSTART, "--vary", f"topology.bottleneck.buffer={','.join(BUFFERS)}",
        "--vary", f"flows.0.cc={','.join(ALGORITHMS)}", "--runs", "2", "--set", SHORT, "--workers", "2",
        "--out", str(out), "--quiet",
    ])
    assert code == 0
    return out


def test_a_sweep_writes_every_point_and_run(cli_sweep):
    result = load_sweep(cli_sweep)
    assert result.status == "complete"
    assert result.labels == ["topology.bottleneck.buffer", "flows.0.cc"]
    assert len(result.points) == 6 and len(result.runs) == 12
    # Three flows per run (two CUBIC-or-BBR, one NewReno), every run once.
    flows = result.flows
    assert len(flows) == 36
    assert list(flows.columns[:3]) == ["topology.bottleneck.buffer", "flows.0.cc", "run"]
    assert not flows.duplicated(["topology.bottleneck.buffer", "flows.0.cc", "run", "flow_id"]).any()
    assert set(flows["topology.bottleneck.buffer"]) == set(BUFFERS)
    first = flows[flows["flow_id"] == 0]
    assert (first["cc"] == first["flows.0.cc"]).all()
    # The time series and queues carry the same point columns.
    for table in (result.timeseries, result.queues, result.links):
        assert list(table.columns[:3]) == ["topology.bottleneck.buffer", "flows.0.cc", "run"]
        assert table.groupby(["topology.bottleneck.buffer", "flows.0.cc", "run"]).ngroups == 12


def test_the_aggregate_has_mean_and_interval_over_runs(cli_sweep):
    aggregate = load_sweep(cli_sweep).aggregate
    goodput = aggregate[(aggregate["table"] == "flows") & (aggregate["metric"] == "goodput_bps")]
    assert len(goodput) == 6 * 3  # per point and per flow
    assert (goodput["n"] == 2).all()
    assert (goodput["ci95_low"] <= goodput["mean"]).all() and (goodput["mean"] <= goodput["ci95_high"]).all()
    links = aggregate[(aggregate["table"] == "links") & (aggregate["metric"] == "utilization")]
    assert "bottleneck forward" in set(links["entity"])
    # Flow ids stay whole numbers beside the links' missing ones.
    assert str(aggregate["flow_id"].dtype) == "Int64" and set(goodput["flow_id"]) == {0, 1, 2}


def test_the_interval_is_student_t_over_runs():
    from tcplab.sweeps.aggregate import aggregate

    flows = pd.DataFrame({"k": ["a"] * 3, "run": [0, 1, 2], "flow_id": [0] * 3, "name": ["f"] * 3, "goodput_bps": [1.0, 2.0, 3.0]})
    row = aggregate(flows, pd.DataFrame(), ["k"]).iloc[0]
    # mean 2, s = 1, t(0.975, 2) = 4.302653: 2 +- 4.302653 / sqrt(3).
    assert row["mean"] == 2.0 and row["std"] == 1.0 and row["n"] == 3
    assert row["ci95_high"] == pytest.approx(2 + 4.302653 / 3**0.5, rel=1e-6)


def test_the_interval_is_clipped_to_the_metrics_domain():
    from tcplab.sweeps.aggregate import aggregate

    # Two runs: t(0.975, 1) = 12.706, so the bare interval of either metric leaves its domain.
    flows = pd.DataFrame({"k": ["a"] * 2, "run": [0, 1], "flow_id": [0] * 2, "name": ["f"] * 2, "timeouts": [0, 4]})
    links = pd.DataFrame({"k": ["a"] * 2, "run": [0, 1], "link": ["l"] * 2, "direction": ["forward"] * 2,
                          "utilization": [0.9, 0.99]})
    rows = aggregate(flows, links, ["k"]).set_index("metric")
    timeouts, utilization = rows.loc["timeouts"], rows.loc["utilization"]
    assert timeouts["mean"] - 12.706 * timeouts["std"] / 2**0.5 < 0  # what Student-t alone gives
    assert timeouts["ci95_low"] == 0.0 and timeouts["ci95_high"] > 4
    assert utilization["ci95_high"] == 1.0 and 0 < utilization["ci95_low"] < 0.9


def test_one_point_rerun_alone_gives_the_same_bytes(cli_sweep, tmp_path):
    manifest = json.loads((cli_sweep / "sweep.json").read_text())
    point = next(p for p in manifest["points"] if p["values"] == {"topology.bottleneck.buffer": "4BDP", "flows.0.cc": "bbr"})
    alone = tcplab.sweep(
        QUICKSTART,
        {"topology.bottleneck.buffer": ["4BDP"], "flows.0.cc": ["bbr"]},
        runs=2, out=tmp_path / "alone", workers=1, set={"simulation.duration": "2s"},
    )
    assert alone.status == "complete"
    for table in ["flows", "links", "timeseries", "queues", "events", "runs"]:
        original = cli_sweep / table / f"p{point['point']:04d}-r001.parquet"
        again = tmp_path / "alone" / table / "p0000-r001.parquet"
        assert original.read_bytes() == again.read_bytes(), table
    # And a plain run with the same run index gives the same rows.
    single = tcplab.run(QUICKSTART, duration="2s", run_index=1,
                        set={"topology.bottleneck.buffer": "4BDP", "flows.0.cc": "bbr"})
    rows = alone.flows[alone.flows["run"] == 1].drop(columns=["topology.bottleneck.buffer", "flows.0.cc", "run"])
    pd.testing.assert_frame_equal(rows.reset_index(drop=True), single.flows)


def test_a_failing_point_is_reported_and_the_others_finish(tmp_path, capsys, monkeypatch):
    # A Python algorithm that validates but raises on its first ACK: a point that fails only
    # when it runs. The workers import it from PYTHONPATH.
    (tmp_path / "failing_cc.py").write_text(
        "import tcplab\nclass Failing(tcplab.CongestionControl):\n    def on_ack(self, ack):\n        {}['x']\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    out = tmp_path / "failing"
    code = main(["sweep", QUICKSTART, "--vary", "flows.0.cc=cubic,python:failing_cc:Failing", "--set", SHORT,
                 "--workers", "2", "--out", str(out)])
    assert code == 1
    printed = capsys.readouterr()
    assert "KeyError: 'x'" in printed.out and "flows.0.cc=python:failing_cc:Failing" in printed.out
    result = load_sweep(out)
    assert result.status == "complete with failures"
    assert list(result.failures["point"]) == [1]
    assert "KeyError: 'x'" in result.failures["error"].iloc[0]
    assert list(result.runs["flows.0.cc"]) == ["cubic"]


def test_a_compare_with_an_unknown_algorithm_is_refused_before_any_worker_starts(tmp_path, capsys, monkeypatch):
    from tcplab.sweeps import runner

    def no_workers(*args, **kwargs):
        raise AssertionError("a worker was started")

    monkeypatch.setattr(runner, "_client", no_workers)
    out = tmp_path / "bogus"
    assert main(["compare", QUICKSTART, "--cc", "cubic,bogus", "--set", SHORT, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("unknown algorithm 'bogus'") == 1 and "algorithm = 'bogus'" in err, err
    assert not out.exists()


def test_an_interrupted_sweep_resumes_without_duplicates_or_gaps(tmp_path):
    out = tmp_path / "interrupted"
    command = [sys.executable, "-m", "tcplab", "sweep", QUICKSTART, "--vary", "flows.0.cc=cubic,reno",
               "--runs", "8", "--set", "simulation.duration=5s", "--workers", "1", "--out", str(out), "--quiet"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(list((out / "runs").glob("p*.parquet"))) < 2:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the sweep wrote no run within 120 s"
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "tcplab sweep --resume" in stderr
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["status"] == "interrupted"
    finished_before = len(list((out / "runs").glob("p*.parquet")))
    assert 2 <= finished_before < 16
    assert not list(out.glob("*/.*.tmp"))

    assert main(["sweep", "--resume", str(out), "--workers", "2", "--quiet"]) == 0
    result = load_sweep(out)
    assert result.status == "complete"
    assert sorted(zip(result.runs["flows.0.cc"], result.runs["run"])) == sorted((cc, r) for cc in ["cubic", "reno"] for r in range(8))
    assert len(result.flows) == 16 * 3
    assert not result.flows.duplicated(["flows.0.cc", "run", "flow_id"]).any()


def test_compare_runs_each_algorithm_on_every_tcp_flow(tmp_path):
    out = tmp_path / "compare"
    assert main(["compare", QUICKSTART, "--cc", "reno,bbr", "--set", SHORT, "--workers", "2",
                 "--out", str(out), "--quiet"]) == 0
    flows = load_sweep(out).flows
    assert sorted(set(flows["cc"])) == ["bbr", "reno"]
    # The label column "algorithm" agrees with every flow's algorithm: all three TCP flows of the
    # quickstart (two CUBIC, one NewReno) run it.
    assert flows.columns[0] == "algorithm"
    assert (flows["cc"] == flows["algorithm"]).all()
    assert list(flows.groupby("algorithm").size()) == [3, 3]


def test_a_sweep_table_in_the_scenario_file(tmp_path):
    scenario = tmp_path / "swept.toml"
    scenario.write_text(Path(QUICKSTART).read_text() + """
[sweep]
runs = 2
zip = true
[sweep.vary]
"flows.0.cc" = ["cubic", "reno"]
"topology.bottleneck.rate" = ["20Mbps", "40Mbps"]
""")
    result = tcplab.sweep(scenario, out=tmp_path / "table", workers=1, set={"simulation.duration": "1s"})
    assert list(result.points["flows.0.cc"]) == ["cubic", "reno"]
    assert list(result.points["topology.bottleneck.rate"]) == ["20Mbps", "40Mbps"]
    assert len(result.runs) == 4


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--vary", "flows.0.cc"], "--vary: 'flows.0.cc' is not key=value1,value2"),
        (["--vary", "flows.7.cc=reno,cubic"], "flows.7.cc: '7' is not a position in flows"),
        (["--zip", "--vary", "flows.0.cc=reno,cubic", "--vary", "simulation.seed=1,2,3"], "need equal lengths"),
        (["--runs", "0", "--vary", "flows.0.cc=reno"], "--runs (sweep.runs): 0 is outside 1 to 10000"),
        (["--vary", "flows.0.cc=reno,reno"], "lists a value twice"),
        (["--vary", "name=a,b"], "cannot be varied"),
        (["--workers", "0", "--vary", "flows.0.cc=reno"], "--workers: 0 is not a number of workers"),
    ],
)
def test_bad_sweeps_get_an_error_naming_the_option(arguments, message, tmp_path, capsys):
    code = main(["sweep", QUICKSTART, *arguments, "--out", str(tmp_path / "bad")])
    assert code == 2
    assert message in capsys.readouterr().err


def test_resume_and_out_are_checked(tmp_path, capsys, cli_sweep):
    assert main(["sweep", "--resume", str(tmp_path)]) == 2
    assert "holds no sweep" in capsys.readouterr().err
    assert main(["sweep", QUICKSTART, "--out", str(cli_sweep)]) == 2
    assert "already holds a sweep" in capsys.readouterr().err
    assert main(["sweep", "--resume", str(cli_sweep), "--runs", "3"]) == 2
    assert "give only the directory" in capsys.readouterr().err


def test_a_sweep_on_a_running_dask_scheduler_and_two_workers(tmp_path):
    """A real `dask scheduler` and two `dask worker` processes on loopback, reached by --scheduler."""
    scheduler_file = tmp_path / "scheduler.json"
    environment = {**os.environ, "PYTHONWARNINGS": "ignore"}
    processes = [subprocess.Popen(
        ["dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(scheduler_file)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment,
    )]
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists():
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
        for _ in range(2):
            processes.append(subprocess.Popen(
                ["dask", "worker", "--scheduler-file", str(scheduler_file), "--host", "127.0.0.1", "--nthreads", "1",
                 "--no-dashboard"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment,
            ))
        address = json.loads(scheduler_file.read_text())["address"]
        from distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
            workers = client.scheduler_info()["workers"]
        assert len(workers) == 2 and all(w.startswith("tcp://127.0.0.1:") for w in workers)
        out = tmp_path / "remote"
        assert main(["sweep", QUICKSTART, "--vary", "flows.0.cc=cubic,bbr,reno", "--runs", "2",
                     "--set", SHORT, "--scheduler", address, "--out", str(out), "--quiet"]) == 0
        result = load_sweep(out)
        assert result.status == "complete" and len(result.runs) == 6
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            process.wait(timeout=30)


def test_several_scenario_files_are_a_varied_parameter(tmp_path):
    slow = tmp_path / "slow.toml"
    slow.write_text(Path(QUICKSTART).read_text().replace('rate = "50Mbps"', 'rate = "10Mbps"'))
    out = tmp_path / "files"
    assert main(["sweep", QUICKSTART, str(slow), "--set", "simulation.duration=1s", "--workers", "1", "--out", str(out), "--quiet"]) == 0
    runs = load_sweep(out).runs
    assert list(runs["scenario_file"]) == [QUICKSTART, str(slow)]
    fast_goodput, slow_goodput = runs["total_goodput_bps"]
    assert slow_goodput < 10e6 < fast_goodput


def test_a_sweep_runs_every_point_on_ns3_and_a_refused_point_is_that_points_error(tmp_path, capsys):
    """`--backend ns3`: each run goes to the compiled ns-3 engine on a Dask worker; ns-3's refusal of
    one point (HighSpeed's ns-3 version grows whether cwnd-limited or not) is that point's error."""
    out = tmp_path / "on-ns3"
    # A scenario with the ns3 profile: ns-3 has no RACK, which the quick-start's Linux profile uses.
    step = str(Path(QUICKSTART).parent / "papers" / "rta" / "step.toml")
    code = main(["sweep", step, "--vary", "flows.0.cc=newreno,highspeed", "--set", SHORT, "--set", "flows.0.params={}",
                 "--backend", "ns3", "--workers", "2", "--out", str(out)])
    assert code == 1
    assert "cannot run on ns-3" in capsys.readouterr().out
    result = load_sweep(out)
    assert json.loads((out / "sweep.json").read_text())["plan"]["backend"] == "ns3"
    assert list(result.runs["flows.0.cc"]) == ["newreno"]
    assert list(result.runs["backend"]) == ["ns3"]
    single = tcplab.run(step, backend="ns3", set={"simulation.duration": "2s", "flows.0.cc": "newreno", "flows.0.params": {}})
    assert result.flows["goodput_bps"].iloc[0] == single.flows["goodput_bps"].iloc[0]


def test_the_linux_back_end_is_not_swept(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["sweep", QUICKSTART, "--vary", "flows.0.cc=reno", "--backend", "linux", "--out", str(tmp_path / "x")])
    assert "invalid choice: 'linux'" in capsys.readouterr().err
