"""Congestion control algorithms written in Python: the reference Reno equals the built-in one,
the examples survive the random event sequences the Rust algorithms do, errors are clear, and
Python algorithms run in sweeps on Dask workers."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

import tcplab
from tcplab import _core
from tcplab.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "python_cc"
QUICKSTART = str(ROOT / "scenarios" / "quickstart.toml")
# Explicit names, so that flow names do not carry the algorithm's name.
NAMED = {"flows.0.name": "bulk", "flows.1.name": "late"}


@pytest.fixture(autouse=True)
def examples_importable(monkeypatch):
    """The examples import by module path, here and in Dask's worker processes (which inherit
    PYTHONPATH from the environment)."""
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.setenv("PYTHONPATH", f"{EXAMPLES}:{ROOT / 'python'}")


def test_python_reno_equals_the_built_in_reno_byte_for_byte(tmp_path):
    rust = tcplab.run(QUICKSTART, set={**NAMED, "flows.0.cc": "reno", "flows.1.cc": "reno"})
    python = tcplab.run(QUICKSTART, set={**NAMED, "flows.0.cc": "python:reno:Reno", "flows.1.cc": "python:reno:Reno"})
    rust.save(tmp_path / "rust")
    python.save(tmp_path / "python")
    for table in ["links", "timeseries", "queues", "events"]:
        assert (tmp_path / "rust" / f"{table}.parquet").read_bytes() == (tmp_path / "python" / f"{table}.parquet").read_bytes(), table
    # The flows table names the algorithm; everything else in it is equal.
    assert list(python.flows["cc"]) == ["python:reno:Reno"] * 3
    pd.testing.assert_frame_equal(rust.flows.drop(columns="cc"), python.flows.drop(columns="cc"))
    assert rust.flows["retransmitted_segments"].sum() > 0  # the comparison covered losses


def test_a_flow_of_a_python_algorithm_is_named_by_its_class():
    result = tcplab.run(QUICKSTART, duration="1s", set={"flows.0.cc": "python:reno:Reno"})
    assert result.flows["name"].iloc[0] == "Reno-0"
    assert result.flows["cc"].iloc[0] == "python:reno:Reno"


def test_a_class_passed_to_the_api(tmp_path):
    sys.path.insert(0, str(EXAMPLES))
    from delay_based import DelayBased

    result = tcplab.run(QUICKSTART, duration="5s", algorithms={"delay": DelayBased}, set={"flows.0.cc": "delay"})
    delay = result.flows[result.flows["cc"] == "delay"]
    assert len(delay) == 2 and (delay["goodput_bps"] > 1e6).all()
    assert set(result.timeseries["state"]) >= {"slow_start"}


@pytest.mark.parametrize("name", ["python:reno:Reno", "python:delay_based:DelayBased"])
def test_the_examples_survive_the_random_event_sequences(name):
    for seed in range(8):
        _core.check_algorithm_properties(name, "", seed * 7919 + 1)


def test_the_property_check_catches_a_broken_algorithm():
    class Shrinking(tcplab.CongestionControl):
        def on_congestion_event(self, event):
            self.ssthresh = self.mss  # below two segments

    tcplab.register_algorithm("shrinking", Shrinking)
    with pytest.raises(ValueError, match="shrinking step .*: ssthresh 1448 below two segments"):
        _core.check_algorithm_properties("shrinking", "", 1)


class Raising(tcplab.CongestionControl):
    def on_ack(self, ack):
        if ack.now > 500_000_000:
            raise RuntimeError("my bug")


class Tiny(tcplab.CongestionControl):
    def on_ack(self, ack):
        self.cwnd = 100


class NotANumber(tcplab.CongestionControl):
    def on_ack(self, ack):
        self.cwnd = float("nan")


class WrongType(tcplab.CongestionControl):
    def on_ack(self, ack):
        self.state = 3


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        (Raising, r"flow bulk-0 \(mine\): at 0\.5\d+ s, in on_ack: RuntimeError: my bug \(test_python_cc.py:\d+\)"),
        (Tiny, r"in on_ack: cwnd = 100 bytes is below one segment \(1448 bytes\)"),
        (NotANumber, r"cwnd = NaN is not a finite, non-negative number of bytes"),
        (WrongType, r"state must be a str, got int"),
    ],
)
def test_a_failing_algorithm_stops_the_run_with_its_error(cls, message):
    with pytest.raises(tcplab.AlgorithmError, match=message) as error:
        tcplab.run(QUICKSTART, duration="3s", algorithms={"mine": cls}, set={**NAMED, "flows.0.cc": "mine"})
    assert isinstance(error.value, tcplab.ScenarioError)


@pytest.mark.parametrize(
    ("cc", "params", "key", "message"),
    [
        ("python:no_such_module:X", None, "flows.0.cc", "cannot import module 'no_such_module'"),
        ("python:reno:Nope", None, "flows.0.cc", "module 'reno' has no class 'Nope'"),
        ("python:json:JSONDecoder", None, "flows.0.cc", "is not a subclass of tcplab.CongestionControl"),
        ("python:reno", None, "flows.0.cc", "is not python:package.module:ClassName"),
        ("python:reno:Reno", {"nope": 1}, "flows.0.params", "unexpected keyword argument 'nope'"),
        ("python:delay_based:DelayBased", {"alpha": 5, "beta": 1}, "flows.0.params", "need 0 <= alpha <= beta"),
    ],
)
def test_bad_names_and_parameters_name_the_key(cc, params, key, message):
    overrides = {"flows.0.cc": cc}
    if params is not None:
        overrides["flows.0.params"] = params
    with pytest.raises(tcplab.ScenarioError) as error:
        tcplab.run(QUICKSTART, set=overrides)
    assert error.value.key == key and message in str(error.value)


def test_the_command_line_reports_a_failing_algorithm_without_a_traceback(tmp_path, capsys):
    module = tmp_path / "failing_cc.py"
    module.write_text("import tcplab\nclass Failing(tcplab.CongestionControl):\n    def on_ack(self, ack):\n        {}['x']\n")
    sys.path.insert(0, str(tmp_path))
    code = main(["run", QUICKSTART, "--set", "flows.0.cc=python:failing_cc:Failing", "--quiet", "--out", str(tmp_path / "out")])
    assert code == 2
    err = capsys.readouterr().err
    assert "error: flow Failing-0 (python:failing_cc:Failing): at " in err and "KeyError: 'x' (failing_cc.py:4)" in err and "Traceback" not in err


def test_a_python_algorithm_in_a_two_worker_sweep(tmp_path):
    sweep = tcplab.sweep(QUICKSTART, {"flows.0.cc": ["python:reno:Reno", "reno"]}, runs=2, workers=2,
                         out=tmp_path / "sweep", set={**NAMED, "simulation.duration": "3s"})
    assert sweep.status == "complete" and sweep.failures.empty
    flows = sweep.flows
    python = flows[flows["flows.0.cc"] == "python:reno:Reno"].drop(columns=["flows.0.cc", "cc"]).reset_index(drop=True)
    rust = flows[flows["flows.0.cc"] == "reno"].drop(columns=["flows.0.cc", "cc"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(python, rust)


def test_register_refuses_what_is_not_an_algorithm():
    with pytest.raises(TypeError, match="not a subclass of tcplab.CongestionControl"):
        tcplab.register_algorithm("x", dict)
    with pytest.raises(ValueError, match="module paths"):
        tcplab.register_algorithm("python:x", tcplab.CongestionControl)


class FixedRate(tcplab.CongestionControl):
    """Paces at 10 Mbit/s behind a window that never binds."""

    def __init__(self, connection):
        super().__init__(connection)
        self.cwnd = 10_000 * connection.mss
        self.pacing_rate = 10_000_000


def test_pacing_at_a_rate_delivers_that_rate_of_payload(tmp_path):
    # Linux and ns-3 charge pacing by payload bytes: a 10 Mbit/s pacing rate delivers 10 Mbit/s
    # of payload, not 1448/1500 of it (headers are 52 of every 1500 bytes here).
    scenario = tmp_path / "paced.toml"
    scenario.write_text(
        '[simulation]\nduration = "10s"\n[topology]\nkind = "dumbbell"\n'
        'bottleneck = { rate = "100Mbps", delay = "10ms", buffer = "1BDP" }\n'
        '[[flows]]\ncc = "fixed"\n'
    )
    result = tcplab.run(scenario, algorithms={"fixed": FixedRate})
    goodput = float(result.flows["goodput_bps"].iloc[0])
    assert result.flows["retransmitted_segments"].iloc[0] == 0
    assert abs(goodput - 10e6) / 10e6 < 0.005, goodput
