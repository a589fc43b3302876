"""HTML reports of runs and sweeps: their content (every congested link, intervals inside each
metric's domain, flows named alike everywhere, one time series per compared algorithm), and how
headless Chromium renders them, alt text included."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import tomllib
from pathlib import Path

import numpy as np
import pytest
from matplotlib.image import imread

import tcplab
from tcplab import report_figures
from tcplab.cli import main
from tcplab.report import write_report
from tcplab.scenario import links_named_by
from tcplab.sweeps import load_sweep

QUICKSTART = str(Path(__file__).resolve().parent.parent / "scenarios" / "quickstart.toml")

# Two bottlenecks in a row, both overflowing: r0-r1 (20 Mbit/s) carries three flows, r1-r2
# (10 Mbit/s) two. Random losses on r0-r1 make the two runs of a point differ.
TWO_BOTTLENECKS = """
name = "two-bottlenecks"
[simulation]
duration = "5s"
[topology]
kind = "chain"
routers = 3
hops = [
  { rate = "20Mbps", delay = "5ms", buffer = "30p", forward = { loss = { model = "bernoulli", p = 0.003 } } },
  { rate = "10Mbps", delay = "5ms", buffer = "30p" },
]
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
def sweep_dir(tmp_path_factory) -> Path:
    """3 buffers x 2 algorithms x 2 runs, under a name that needs escaping."""
    out = tmp_path_factory.mktemp("report") / "sweep"
    tcplab.sweep(QUICKSTART, {"topology.bottleneck.buffer": ["1BDP", "4BDP", "16BDP"], "flows.0.cc": ["cubic", "bbr"]},
                 runs=2, out=out, workers=2, set={"simulation.duration": "2s", "name": "quick <&> start"})
    return out


@pytest.fixture(scope="module")
def chain_sweep(tmp_path_factory) -> tuple[Path, str]:
    """The two-bottleneck chain with hop 1's buffer varied, 2 runs a point, through the command
    line; the directory and what the command printed."""
    folder = tmp_path_factory.mktemp("chain")
    (folder / "chain.toml").write_text(TWO_BOTTLENECKS)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = main(["sweep", str(folder / "chain.toml"), "--vary", "topology.hops.1.buffer=10p,60p", "--runs", "2",
                     "--workers", "2", "--out", str(folder / "sweep")])
    assert code == 0
    return folder / "sweep", printed.getvalue()


@pytest.fixture(scope="module")
def compare_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("compare") / "compare"
    assert main(["compare", QUICKSTART, "--cc", "cubic,reno,bbr", "-t", "2s", "--runs", "2", "--workers", "2", "--quiet",
                 "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "run"
    tcplab.run(QUICKSTART, duration="2s").save(out)
    return out


def test_a_sweep_report_has_every_section(sweep_dir):
    page = write_report(sweep_dir).read_text()
    for heading in ["Varied parameters", "Flows: mean over runs", "Congested links", "Against topology.bottleneck.buffer",
                    "Against flows.0.cc", "Throughput and delay", "Over time: point 0", "Scenario"]:
        assert heading in page, heading
    # 2 metrics x 2 tables per parameter, the scatter and the time series.
    assert page.count("<img ") == 2 * 4 + 2
    assert "quick &lt;&amp;&gt; start" in page and "quick <&> start" not in page
    assert "<script" not in page and "src=\"http" not in page and "<link" not in page


def test_a_run_report_and_the_chosen_sweep_run(run_dir, sweep_dir, tmp_path):
    page = write_report(run_dir).read_text()
    assert page.count("<img ") == 2 and "cubic-0" in page
    chosen = write_report(sweep_dir, out=tmp_path / "chosen.html", run="5:1").read_text()
    assert "Over time: point 5 (topology.bottleneck.buffer = 16BDP, flows.0.cc = bbr), run 1" in chosen


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--run", "7:x"], "--run: '7:x' is not POINT:RUN"),
        (["--run", "9:0"], "point 9 run 0 has not finished"),
    ],
)
def test_report_errors_name_the_option(sweep_dir, arguments, message, capsys):
    assert main(["report", str(sweep_dir), *arguments]) == 2
    assert message in capsys.readouterr().err


def test_a_directory_that_is_neither_run_nor_sweep(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert "is neither a run nor a sweep directory" in capsys.readouterr().err


def test_a_sweep_with_failures_and_one_with_no_finished_run(tmp_path, monkeypatch):
    # An unknown algorithm is refused before any run starts, so the failure is one that only
    # running shows: a Python algorithm that raises on its first ACK (workers import it from
    # PYTHONPATH).
    (tmp_path / "failing_cc.py").write_text(
        "import tcplab\nclass Failing(tcplab.CongestionControl):\n    def on_ack(self, ack):\n        {}['x <&>']\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    failing = tcplab.sweep(QUICKSTART, {"flows.0.cc": ["python:failing_cc:Failing"]}, out=tmp_path / "none", workers=1,
                           set={"simulation.duration": "1s"})
    page = write_report(failing.directory).read_text()
    assert "No run of this sweep has finished" in page
    assert "Failed runs (1)" in page and "KeyError: &#x27;x &lt;&amp;&gt;&#x27;" in page


def _chromium():
    if not shutil.which("chromium") or not shutil.which("chromedriver"):
        pytest.fail("Chromium and its driver are missing: scripts/test.sh installs Debian's chromium and chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,3000"]:
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


@pytest.mark.parametrize("which", ["sweep", "run", "chain", "compare"])
def test_reports_render_in_headless_chromium_with_alt_text_on_every_image(which, sweep_dir, run_dir, chain_sweep,
                                                                          compare_dir, tmp_path):
    directory = {"sweep": sweep_dir, "run": run_dir, "chain": chain_sweep[0], "compare": compare_dir}[which]
    report = write_report(directory, out=tmp_path / f"{which}.html")
    driver = _chromium()
    try:
        driver.get(report.resolve().as_uri())
        widths = driver.execute_script("return Array.from(document.images).map(i => i.complete ? i.naturalWidth : 0)")
        alts = driver.execute_script("return Array.from(document.images).map(i => i.alt)")
        severe = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        screenshot = tmp_path / f"{which}.png"
        driver.save_screenshot(str(screenshot))
    finally:
        driver.quit()
    assert severe == []
    assert widths and all(width > 100 for width in widths)
    # Every figure says what it shows to a reader who cannot see it: no empty or placeholder alt.
    assert len(alts) == len(widths)
    assert all(len(alt.split()) >= 5 for alt in alts), alts
    pixels = imread(screenshot)
    # A blank page is one colour; a rendered report has text, tables and figures.
    assert np.std(pixels[..., :3]) > 0.05


def _alt_texts(page: str) -> list[str]:
    import html
    import re

    return [html.unescape(alt) for alt in re.findall(r'<img alt="([^"]*)"', page)]


def test_a_chain_sweep_report_shows_both_bottlenecks(chain_sweep):
    directory, _ = chain_sweep
    page = write_report(directory).read_text()
    links_table = page.split("<h2>Congested links")[1].split("<h2>")[0]
    assert "r0-r1 forward" in links_table and "r1-r2 forward" in links_table
    link_figures = [alt for alt in _alt_texts(page) if alt.startswith(("link utilization", "95th-percentile queueing"))]
    assert len(link_figures) == 2
    assert all(alt.endswith("link directions r0-r1 forward, r1-r2 forward") for alt in link_figures)
    (over_time,) = [alt for alt in _alt_texts(page) if "over time" in alt]
    assert over_time.endswith("queue of r0-r1 forward, r1-r2 forward")


def test_varied_keys_name_the_links_the_links_table_names():
    chain = tomllib.loads(TWO_BOTTLENECKS)
    assert links_named_by(chain, ["topology.hops.1.buffer", "flows.0.cc"]) == ["r1-r2"]
    assert links_named_by(chain, ["topology.hops.0.forward.loss.p"]) == ["r0-r1"]
    chain["topology"]["hops"][1]["name"] = "tail"
    assert links_named_by(chain, ["topology.hops.1.rate"]) == ["tail"]
    custom = {"topology": {"kind": "custom", "links": [{"from": "a", "to": "b"}, {"from": "b", "to": "c", "name": "bc"}]}}
    assert links_named_by(custom, ["topology.links.0.delay", "topology.links.1.rate"]) == ["link0", "bc"]
    assert links_named_by({"topology": {"kind": "dumbbell"}}, ["topology.bottleneck.buffer"]) == ["bottleneck"]
    assert links_named_by({"topology": {"kind": "dumbbell"}}, ["topology.access.delay"]) == []


def test_links_option_chooses_the_reports_links(chain_sweep, tmp_path, capsys):
    directory, _ = chain_sweep
    assert main(["report", str(directory), "--links", "r1-r2", "--out", str(tmp_path / "r1.html")]) == 0
    page = (tmp_path / "r1.html").read_text()
    links_table = page.split("<h2>Links chosen with --links")[1].split("<h2>")[0]
    assert "r1-r2 forward" in links_table and "r0-r1" not in links_table
    (over_time,) = [alt for alt in _alt_texts(page) if "over time" in alt]
    assert over_time.endswith("queue of r1-r2 forward")
    assert main(["report", str(directory), "--links", "r1-r3"]) == 2
    assert "--links: no link named 'r1-r3'; the links are r0-r1, r1-r2, access-s0" in capsys.readouterr().err


def test_intervals_from_two_runs_stay_inside_each_metrics_domain(chain_sweep):
    directory, printed = chain_sweep
    aggregate = load_sweep(directory).aggregate
    spread = aggregate[aggregate["std"] > 0]
    # Student's t alone, t(0.975, 1) = 12.706, would go below 0 for some metric of this sweep.
    bare_low = spread["mean"] - 12.706 * spread["std"] / np.sqrt(spread["n"])
    assert (bare_low < 0).any()
    assert (aggregate["ci95_low"].dropna() >= 0).all()
    fractions = aggregate[aggregate["metric"] == "utilization"]
    assert (fractions["ci95_high"].dropna() <= 1).all()
    page = write_report(directory).read_text()
    assert page.count("some intervals rest on n = 2 runs, fewer than 5") == 2  # under the flows and the links tables
    assert "<th>runs (n)</th>" in page and " [0, " in page  # a clipped lower bound, shown as 0
    assert "note: intervals from fewer than 5 runs are wide" in printed


def test_a_compare_report_has_one_time_series_per_algorithm(compare_dir):
    page = write_report(compare_dir).read_text()
    headings = [line for line in page.splitlines() if line.startswith("<h2>Over time")]
    assert [heading.split("algorithm = ")[1].split(")")[0] for heading in headings] == ["cubic", "reno", "bbr"]
    # The algorithm is a category: points with error bars, no line joining one algorithm to the next.
    sweep = load_sweep(compare_dir)
    aggregate = report_figures.with_flow_labels(sweep.aggregate, sweep.flows, sweep.labels)
    figure = report_figures.metric_against_parameter(aggregate[aggregate["table"] == "flows"], "goodput_bps",
                                                     "algorithm", ["cubic", "reno", "bbr"], [])
    # Each flow is one series, named by its names at each point, as the table rows name it there.
    legend = [text.get_text() for text in figure.legends[0].get_texts()]
    assert legend == [f"cubic-{i} / reno-{i} / bbr-{i}" for i in range(3)]
    flows_table = page.split("<h2>Flows: ")[1].split("<h2>")[0]
    names = [row.split("</td>")[1].split(">")[-1] for row in flows_table.split("<tr>")[2:]]
    assert names == [f"{cc}-{i}" for cc in ["cubic", "reno", "bbr"] for i in range(3)]
    drawn = [line for line in figure.axes[0].get_lines() if len(line.get_xdata()) > 1]
    assert drawn and all(line.get_linestyle() == "None" for line in drawn)
    bars = [container.lines[2][0] for container in figure.axes[0].containers]  # one collection per flow
    assert len(bars) == 3 and all(bar.get_linewidth()[0] > 0 for bar in bars)
    lengths = [abs(segment[1][1] - segment[0][1]) for bar in bars for segment in bar.get_segments()]
    assert max(lengths) > 0  # some flow's goodput differs between its two runs


def test_a_run_report_names_flows_alike_and_shows_completion_and_trace_capacity(tmp_path):
    (tmp_path / "hand.trace").write_text("2\n2\n5\n10\n")  # 400 opportunities a second: 4.8 Mbit/s
    (tmp_path / "scenario.toml").write_text("""
[simulation]
duration = "2s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "12Mbps", delay = "5ms", buffer = "100p", forward = { trace = { file = "hand.trace" } } }
[[flows]]
cc = "cubic"
size = "100KB"
[[flows]]
cc = "reno"
size = "10MB"
[[flows]]
protocol = "udp"
rate = "1Mbps"
""")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["run", str(tmp_path / "scenario.toml"), "-o", str(tmp_path / "run")]) == 0
    # The run's summary says the same as the report below.
    assert "incomplete (" in printed.getvalue() and "trace (mean 4.79 Mbit/s)" in printed.getvalue()
    page = write_report(tmp_path / "run").read_text()
    flows_table = page.split("<h2>Flows</h2>")[1].split("<h2>")[0]
    rows = [row.split("</td>")[0].split(">")[-1] for row in flows_table.split("<tr>")[2:]]
    assert rows == ["cubic-0 (100 KB)", "reno-1 (10 MB)", "udp-2 (UDP)"]
    assert "incomplete (" in flows_table and "% delivered)" in flows_table  # 10 MB cannot cross 4.8 Mbit/s in 2 s
    assert flows_table.count(" s</td>") == 1  # the 100 KB transfer's completion time
    # 799 opportunities before the run's end at 2 s (the 800th is at 2000 ms): 4.79 Mbit/s.
    assert "trace (mean 4.79 Mbit/s)" in page.split("<h2>Congested links</h2>")[1]
    (over_time,) = [alt for alt in _alt_texts(page) if "over time" in alt]
    assert "cubic-0 (100 KB), reno-1 (10 MB), udp-2 (UDP)" in over_time
