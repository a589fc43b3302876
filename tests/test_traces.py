"""Delivery traces from Python and the command line: a hand-written mahimahi trace next to a
scenario file (relative path), and `tcplab trace cellular` writing a trace that runs."""

from __future__ import annotations

from pathlib import Path

import pytest

import tcplab
from tcplab import traces
from tcplab.cli import main

SCENARIO = """
[simulation]
duration = "1s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "12Mbps", delay = "5ms", buffer = "1000p", forward = { trace = { file = "TRACE" } } }
[[flows]]
protocol = "udp"
rate = "10Mbps"
"""


def test_a_trace_file_beside_the_scenario_is_found_from_anywhere(tmp_path, monkeypatch):
    # mahimahi's format: one line per 1500-byte delivery opportunity, in ms, repeating with the
    # last line's time: 4 per 10 ms here, 4.8 Mbit/s.
    (tmp_path / "hand.trace").write_text("2\n2\n5\n10\n")
    (tmp_path / "scenario.toml").write_text(SCENARIO.replace("TRACE", "hand.trace"))
    monkeypatch.chdir(Path("/"))
    result = tcplab.run(tmp_path / "scenario.toml")
    delivered = result.flows["bytes_delivered"][0] // 1472
    assert 395 <= delivered <= 399
    assert traces.read_mahimahi(tmp_path / "hand.trace") == [2_000_000, 2_000_000, 5_000_000, 10_000_000]


def test_a_missing_or_malformed_trace_names_the_key_and_the_line(tmp_path):
    (tmp_path / "bad.trace").write_text("1\n3\nx\n")
    for name, expected in [("nope.trace", "cannot read trace file"), ("bad.trace", "line 3: 'x'")]:
        (tmp_path / "scenario.toml").write_text(SCENARIO.replace("TRACE", name))
        with pytest.raises(tcplab.ScenarioError) as error:
            tcplab.run(tmp_path / "scenario.toml")
        assert error.value.key == "topology.bottleneck.forward.trace.file"
        assert expected in error.value.message


def test_the_cellular_generator_writes_a_trace_that_runs(tmp_path, capsys):
    # Into folders that do not exist yet.
    out, plot = tmp_path / "traces" / "cell.trace", tmp_path / "plots" / "cell.png"
    assert main(["trace", "cellular", "--out", str(out), "--plot", str(plot), "--set", "length=5s", "--seed", "3"]) == 0
    assert "opportunities over 5.0 s" in capsys.readouterr().out
    assert plot.stat().st_size > 10_000
    times = traces.read_mahimahi(out)
    # Whole milliseconds, non-decreasing, as generated (the file rounds nothing away).
    assert times == traces.generate_cellular({"length": "5s"}, seed=3)
    (tmp_path / "scenario.toml").write_text(SCENARIO.replace("TRACE", "traces/cell.trace"))
    assert tcplab.run(tmp_path / "scenario.toml").flows["bytes_delivered"][0] > 0


def test_bad_generator_parameters_are_refused_with_the_key():
    with pytest.raises(tcplab.ScenarioError) as error:
        traces.generate_cellular({"fading_std_db": 50})
    assert "cellular.fading_std_db" in str(error.value)


def test_the_trace_commands_help_lists_every_generator_parameter_with_its_default(capsys):
    with pytest.raises(SystemExit):
        main(["trace", "--help"])
    printed = " ".join(capsys.readouterr().out.split())
    defaults = traces.cellular_defaults()
    assert set(defaults) == {"length", "lte_rate", "nr_rate", "nr_on_mean", "nr_off_mean", "fading_std_db",
                             "fading_coherence"}
    for name, value in defaults.items():
        assert f"{name} = {value}" in printed, name
