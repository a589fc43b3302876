"""HTML reports of runs and sweeps: their content, and how headless Chromium renders them."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from matplotlib.image import imread

import tcplab
from tcplab.cli import main
from tcplab.report import write_report

QUICKSTART = str(Path(__file__).resolve().parent.parent / "scenarios" / "quickstart.toml")


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory) -> Path:
    """3 buffers x 2 algorithms x 2 runs, under a name that needs escaping."""
    out = tmp_path_factory.mktemp("report") / "sweep"
    tcplab.sweep(QUICKSTART, {"topology.bottleneck.buffer": ["1BDP", "4BDP", "16BDP"], "flows.0.cc": ["cubic", "bbr"]},
                 runs=2, out=out, workers=2, set={"simulation.duration": "2s", "name": "quick <&> start"})
    return out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "run"
    tcplab.run(QUICKSTART, duration="2s").save(out)
    return out


def test_a_sweep_report_has_every_section(sweep_dir):
    page = write_report(sweep_dir).read_text()
    for heading in ["Varied parameters", "Flows: mean over runs", "Busiest links", "Against topology.bottleneck.buffer",
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


def test_a_sweep_with_failures_and_one_with_no_finished_run(tmp_path):
    failing = tcplab.sweep(QUICKSTART, {"flows.0.cc": ["cubik"]}, out=tmp_path / "none", workers=1,
                           set={"simulation.duration": "1s"})
    page = write_report(failing.directory).read_text()
    assert "No run of this sweep has finished" in page
    assert "Failed runs (1)" in page and "unknown algorithm &#x27;cubik&#x27;" in page


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


@pytest.mark.parametrize("which", ["sweep", "run"])
def test_reports_render_in_headless_chromium(which, sweep_dir, run_dir, tmp_path):
    report = write_report(sweep_dir if which == "sweep" else run_dir, out=tmp_path / f"{which}.html")
    driver = _chromium()
    try:
        driver.get(report.resolve().as_uri())
        widths = driver.execute_script("return Array.from(document.images).map(i => i.complete ? i.naturalWidth : 0)")
        severe = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        screenshot = tmp_path / f"{which}.png"
        driver.save_screenshot(str(screenshot))
    finally:
        driver.quit()
    assert severe == []
    assert widths and all(width > 100 for width in widths)
    pixels = imread(screenshot)
    # A blank page is one colour; a rendered report has text, tables and figures.
    assert np.std(pixels[..., :3]) > 0.05
