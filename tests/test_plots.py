"""Per-run plots: one legend, reference lines in the axis' unit, titles, smoothing, CDFs; and the
run command's CSV and JSON outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tcplab
from tcplab import plots
from tcplab.cli import main

QUICKSTART = str(Path(__file__).resolve().parent.parent / "scenarios" / "quickstart.toml")

SIXTEEN = """
name = "sixteen"
[simulation]
duration = "3s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "100Mbps", delay = "10ms", buffer = "100p" }
[[flows]]
cc = "cubic"
count = 10
[[flows]]
cc = "bbr"
count = 4
[[flows]]
cc = "reno"
count = 2
size = "100KB"
"""


@pytest.fixture(scope="module")
def sixteen():
    return tcplab.run(SIXTEEN)


@pytest.fixture(scope="module")
def quick():
    return tcplab.run(QUICKSTART, duration="6s")


def test_many_flows_get_one_legend_entry_per_algorithm(sixteen):
    figure = plots.overview(sixteen)
    assert len(figure.legends) == 1
    assert all(ax.get_legend() is None for ax in figure.axes)
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    assert sorted(labels) == ["bbr (4 flows)", "cubic (10 flows)", "reno (2 flows)"]


def test_few_flows_get_one_legend_entry_per_flow(quick):
    labels = [text.get_text() for text in plots.overview(quick).legends[0].get_texts()]
    assert labels == ["cubic-0", "cubic-1", "newreno-2"]


def _flat_lines(ax):
    return [line.get_ydata()[0] for line in ax.get_lines() if len(set(np.asarray(line.get_ydata(), dtype=float))) == 1]


def test_reference_lines_sit_at_capacity_base_rtt_and_buffer(quick):
    cwnd, rtt, throughput, queue = plots.overview(quick).axes[:4]
    assert 50.0 in _flat_lines(throughput)  # the 50 Mbit/s bottleneck, in Mbit/s
    assert min(quick.flows["base_rtt_ms"]) in _flat_lines(rtt)
    # The quickstart's buffer is 1 BDP in bytes: the queue is drawn in KB, the limit too.
    limit_bytes = int(quick.bottleneck()["buffer"].split("B")[0])
    assert queue.get_ylabel() == "queue (KB)" and limit_bytes / 1000 in _flat_lines(queue)


def test_single_panels_have_titles(quick):
    for name, what in plots.PANELS.items():
        assert plots.panel(quick, name)._suptitle.get_text() == f"quickstart: {what}"


def test_smoothing_lowers_the_spread_of_goodput(quick):
    def goodput_std(smooth_s):
        ax = plots.overview(quick, smooth_s=smooth_s).axes[2]
        first_flow = ax.get_lines()[0]
        return float(np.nanstd(first_flow.get_ydata()[10:]))

    assert goodput_std(1.0) < 0.7 * goodput_std(None)


def test_completion_time_cdf_has_a_step_per_completed_flow(sixteen, quick):
    completed = sixteen.flows["completion_time_s"].dropna()
    assert len(completed) == 2
    line = plots.completion_time_cdf(sixteen).axes[0].get_lines()[0]
    assert list(line.get_ydata()) == [0.0, 0.5, 1.0]
    assert list(line.get_xdata()[1:]) == sorted(completed)
    assert plots.completion_time_cdf(quick) is None


def test_save_all_writes_the_cdfs(sixteen, tmp_path):
    names = {path.name for path in plots.save_all(sixteen, tmp_path)}
    assert {"overview.png", "cwnd.png", "rtt.png", "throughput.png", "queue.png", "rtt_cdf.png", "fct_cdf.png"} == names


def test_csv_beside_parquet_reads_back_the_same(tmp_path):
    out = tmp_path / "csv"
    assert main(["run", QUICKSTART, "--set", "simulation.duration=2s", "--csv", "--quiet", "--out", str(out)]) == 0
    for table in ["flows", "links", "timeseries", "queues"]:
        parquet = pd.read_parquet(out / f"{table}.parquet")
        csv = pd.read_csv(out / f"{table}.csv", keep_default_na=True)
        pd.testing.assert_frame_equal(csv, parquet, check_dtype=False, rtol=1e-12)


def test_json_summary_on_standard_output(tmp_path, capsys):
    out = tmp_path / "json"
    assert main(["run", QUICKSTART, "--set", "simulation.duration=2s", "--json", "--out", str(out)]) == 0
    document = json.loads(capsys.readouterr().out)
    flows = pd.read_parquet(out / "flows.parquet")
    assert [flow["goodput_bps"] for flow in document["flows"]] == list(flows["goodput_bps"])
    assert document["summary"]["simulated_seconds"] == 2.0
    assert document["flows"][0]["completion_time_s"] is None  # NaN becomes null


def test_bad_smoothing_is_an_error_naming_the_option(capsys):
    assert main(["run", QUICKSTART, "--smooth", "fast"]) == 2
    assert "--smooth: 'fast' is not a duration" in capsys.readouterr().err
