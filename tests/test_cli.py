"""The tcplab command line: outputs, files, and errors without tracebacks."""

import json
import subprocess
import sys

from tcplab.cli import main


def test_run_prints_a_summary_and_writes_results(quickstart, tmp_path, capsys):
    out = tmp_path / "quick"
    assert main(["run", str(quickstart), "--set", "simulation.duration=2s", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "goodput Mb/s" in printed and "cubic-0" in printed and "bottleneck" in printed
    names = {p.name for p in out.iterdir()}
    assert {"flows.parquet", "links.parquet", "timeseries.parquet", "queues.parquet", "events.parquet", "summary.json", "scenario.toml"} <= names
    assert {"overview.png", "cwnd.png", "rtt.png", "throughput.png", "queue.png"} <= names
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 1 and summary["simulated_seconds"] == 2.0


def test_seed_option_and_no_plots(quickstart, tmp_path):
    out = tmp_path / "seeded"
    assert main(["run", str(quickstart), "--set", "simulation.duration=1s", "--seed", "9", "--no-plots", "--quiet", "--out", str(out)]) == 0
    assert json.loads((out / "summary.json").read_text())["seed"] == 9
    assert not list(out.glob("*.png"))


def test_validate_and_algorithms(quickstart, capsys):
    assert main(["validate", str(quickstart)]) == 0
    assert "initial_window = 10" in capsys.readouterr().out
    assert main(["algorithms", "cubic"]) == 0
    printed = capsys.readouterr().out
    assert "hystart_low_window" in printed and "RFC 9438" in printed


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tcplab", *args], capture_output=True, text=True, cwd=cwd, check=False)


def test_errors_exit_2_and_name_the_key_without_a_traceback(quickstart, tmp_path):
    cases = [
        (["run", str(quickstart), "--set", "topology.bottleneck.rate=fast"], "topology.bottleneck.rate: 'fast' is not a rate"),
        (["run", str(quickstart), "--set", "flows.0.cc=tahoe"], "flows[0].cc: unknown algorithm 'tahoe'; available: reno, newreno, cubic"),
        (["run", str(quickstart), "--set", "simulation.duration=-1s"], "simulation.duration: duration '-1s' is negative"),
        (["run", str(quickstart), "--set", "oops"], "--set: 'oops' is not key=value"),
        (["run", str(tmp_path / "missing.toml")], "does not exist"),
        (["algorithms", "tahoe"], "unknown algorithm 'tahoe'"),
    ]
    bad_toml = tmp_path / "bad.toml"
    bad_toml.write_text("[simulation\nduration = 1")
    cases.append((["validate", str(bad_toml)], "is not valid TOML"))
    unknown_key = tmp_path / "unknown.toml"
    unknown_key.write_text(quickstart.read_text().replace("[simulation]", "[simulation]\nspeed = 3"))
    cases.append((["validate", str(unknown_key)], "unknown field `speed`"))
    for args, message in cases:
        completed = _cli(*args, cwd=tmp_path)
        assert completed.returncode == 2, (args, completed.stderr)
        assert message in completed.stderr, (args, completed.stderr)
        assert "Traceback" not in completed.stderr


def test_console_script_is_installed():
    completed = subprocess.run(["tcplab", "--version"], capture_output=True, text=True, check=False)
    assert completed.returncode == 0 and completed.stdout.startswith("tcplab ")
