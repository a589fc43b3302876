"""Per-run plots: one legend, reference lines in the axis' unit, titles, smoothing, CDFs, every
congested queue, a trace link's capacity over time, flow labels; and the run command's CSV and
JSON outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tcplab
from tcplab import cli_options, plots, traces
from tcplab.cli import main

QUICKSTART = str(Path(__file__).resolve().parent.parent / "scenarios" / "quickstart.toml")

# 4 s: the second 100 KB Reno flow completes at 3.6 s, after timeouts (the four BBR flows keep
# the 100-packet buffer full and its lone retransmissions meet it).
SIXTEEN = """
name = "sixteen"
[simulation]
duration = "4s"
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


# Two bottlenecks in a row: r0-r1 (20 Mbit/s) carries three flows, r1-r2 (10 Mbit/s) two, and
# both overflow their 30-packet buffers.
TWO_BOTTLENECKS = """
name = "two-bottlenecks"
[simulation]
duration = "6s"
[topology]
kind = "chain"
routers = 3
hops = [{ rate = "20Mbps", delay = "5ms", buffer = "30p" }, { rate = "10Mbps", delay = "5ms", buffer = "30p" }]
[[flows]]
cc = "cubic"
from = "r0"
to = "r2"
[[flows]]
cc = "cubic"
from = "r0"
to = "r1"
count = 2
[[flows]]
cc = "reno"
from = "r1"
to = "r2"
"""


@pytest.fixture(scope="module")
def chain():
    return tcplab.run(TWO_BOTTLENECKS)


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

    assert goodput_std(1.0) < 0.7 * goodput_std(0)


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


def _queue_titles(figure):
    return [ax.get_title() for ax in figure.axes if ax.get_title().startswith("queue of ")]


def test_both_bottlenecks_of_a_chain_get_a_queue_panel(chain):
    congested = chain.links[plots.congested(chain.links)]
    assert sorted(congested["link"]) == ["r0-r1", "r1-r2"]  # the scenario does what it should
    titles = _queue_titles(plots.overview(chain))
    assert [title.split(",")[0] for title in titles] == ["queue of r0-r1 forward", "queue of r1-r2 forward"]
    assert len(_queue_titles(plots.panel(chain, "queue"))) == 2
    # Each capacity is a reference line on the goodput panel, in Mbit/s.
    goodput = plots.overview(chain).axes[2]
    assert {20.0, 10.0} <= set(_flat_lines(goodput))


def test_links_option_chooses_the_queues_and_refuses_unknown_names(chain, tmp_path, capsys):
    titles = _queue_titles(plots.overview(chain, links=["r0-r1"]))
    assert [title.split(",")[0] for title in titles] == ["queue of r0-r1 forward"]
    scenario = tmp_path / "chain.toml"
    scenario.write_text(TWO_BOTTLENECKS)
    arguments = ["run", str(scenario), "-t", "1s", "--plots", "--quiet", "--out", str(tmp_path / "out")]
    assert main([*arguments, "--links", "r1-r2,r9"]) == 2
    assert "--links: no link named 'r9'; the links are r0-r1, r1-r2, access-s0" in capsys.readouterr().err


def test_a_trace_links_capacity_follows_its_trace(tmp_path):
    # One period of 1 s: 2 opportunities per ms for 300 ms (24 Mbit/s), then 1 per 2 ms (6 Mbit/s).
    times_ms = [t for ms in range(300) for t in (ms, ms)] + list(range(300, 1001, 2))
    (tmp_path / "steps.trace").write_text("".join(f"{t}\n" for t in times_ms))
    (tmp_path / "scenario.toml").write_text("""
[simulation]
duration = "2s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "100Mbps", delay = "5ms", buffer = "100p", forward = { trace = { file = "steps.trace" } } }
[[flows]]
cc = "cubic"
""")
    result = tcplab.run(tmp_path / "scenario.toml")
    goodput = plots.overview(result).axes[2]
    (capacity,) = [line for line in goodput.get_lines() if line.get_label() == "bottleneck forward capacity"]
    # The trace repeats with its last line's time as the period; the run ends at 2 s.
    once = traces.read_mahimahi(tmp_path / "steps.trace")
    repeated = [t + period for period in (0, 1_000_000_000) for t in once if t + period < 2_000_000_000]
    starts, rates = traces.capacity_series(repeated)
    assert list(capacity.get_xdata()) == pytest.approx(starts)
    assert list(capacity.get_ydata()) == pytest.approx(rates)
    # The trace's two levels (a bin edge on an opportunity may take one more: 0.12 Mbit/s).
    assert rates[1] == pytest.approx(24.0, abs=0.13) and rates[5] == pytest.approx(6.0, abs=0.13)
    # The nominal rate (100 Mbit/s) is not drawn as a capacity: it only sizes BDP buffers.
    assert 100.0 not in _flat_lines(goodput)
    mean = result.trace_capacity()[("bottleneck", "forward")]["mean_mbit_s"]
    assert mean == pytest.approx(len(repeated) * 1500 * 8 / 2 / 1e6)


def test_goodput_is_smoothed_by_default_and_raw_with_smooth_0(quick):
    default, raw = plots.overview(quick).axes[2], plots.overview(quick, smooth_s=0).axes[2]
    assert default.get_ylabel() == "goodput (Mbit/s),\ntrailing mean over 1 s"
    assert raw.get_ylabel() == "goodput (Mbit/s),\nas sampled every 50 ms"
    sampled = quick.timeseries[quick.timeseries["flow_id"] == 0]["throughput_bps"].to_numpy() / 1e6
    assert list(raw.get_lines()[0].get_ydata()) == pytest.approx(list(sampled))
    assert max(default.get_lines()[0].get_ydata()) < max(sampled)


def test_flows_are_labelled_in_id_order_with_udp_and_sizes_marked():
    result = tcplab.run("""
[simulation]
duration = "1s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "50Mbps", delay = "10ms" }
[[flows]]
cc = "cubic"
count = 9
[[flows]]
cc = "reno"
size = "10MB"
[[flows]]
protocol = "udp"
rate = "1Mbps"
""")
    figure = plots.overview(result)
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    assert labels == [f"cubic-{i}" for i in range(9)] + ["reno-9 (10 MB)", "udp-10 (UDP)"]
    # The 11th line repeats the first colour, so it takes another line style.
    styles = {(line.get_color(), line.get_linestyle()) for line in figure.legends[0].get_lines()}
    assert len(styles) == 11


def test_smooth_0_means_raw_and_no_option_the_default():
    assert cli_options.smoothing(None) is None  # the plots' default, max(1 s, 10 samples)
    assert cli_options.smoothing("0") == 0.0 and cli_options.smoothing("0s") == 0.0
    assert cli_options.smoothing("2s") == 2.0 and cli_options.smoothing("500ms") == 0.5


def test_a_link_a_sweep_varies_is_shown_even_when_not_congested(quick):
    shown = plots.shown_links(quick, varied=["access-s0"])
    assert list(zip(shown["link"], shown["direction"])) == [("bottleneck", "forward"), ("access-s0", "forward")]
    with pytest.raises(ValueError, match="no link named 'nope'; the links are bottleneck, access-s0"):
        plots.shown_links(quick, ["nope"])
