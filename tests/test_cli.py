"""The tcplab command line: outputs, files, and errors without tracebacks."""

import json
import subprocess
import sys

from tcplab.cli import main


def test_run_prints_a_summary_and_writes_results(quickstart, tmp_path, capsys):
    out = tmp_path / "quick"
    assert main(["run", str(quickstart), "--set", "simulation.duration=2s", "--plots", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "goodput Mb/s" in printed and "cubic-0" in printed and "bottleneck" in printed
    names = {p.name for p in out.iterdir()}
    assert {"flows.parquet", "links.parquet", "timeseries.parquet", "queues.parquet", "events.parquet", "summary.json", "scenario.toml"} <= names
    assert {"overview.png", "cwnd.png", "rtt.png", "throughput.png", "queue.png"} <= names
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 1 and summary["simulated_seconds"] == 2.0


def test_seed_option_and_plots_only_when_asked(quickstart, tmp_path):
    out = tmp_path / "seeded"
    assert main(["run", str(quickstart), "--set", "simulation.duration=1s", "--seed", "9", "--quiet", "--out", str(out)]) == 0
    assert json.loads((out / "summary.json").read_text())["seed"] == 9
    assert not list(out.glob("*.png"))


def test_a_rerun_into_a_used_folder_leaves_none_of_the_earlier_runs_outputs(quickstart, tmp_path):
    out = tmp_path / "used"
    assert main(["run", str(quickstart), "--set", "simulation.duration=1s", "--plots", "--csv", "--quiet", "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    # A report may go anywhere; missing folders are created.
    assert main(["report", str(out), "--out", str(tmp_path / "elsewhere" / "deep" / "r.html")]) == 0
    assert (tmp_path / "elsewhere" / "deep" / "r.html").stat().st_size > 1000
    (out / "notes.txt").write_text("mine")
    assert {"overview.png", "flows.csv", "report.html"} <= {p.name for p in out.iterdir()}
    # The second run writes no plots, no CSV and no report: nothing of the first may remain.
    assert main(["run", str(quickstart), "--set", "simulation.duration=1s", "--quiet", "--out", str(out)]) == 0
    names = {p.name for p in out.iterdir()}
    assert not {n for n in names if n.endswith((".png", ".csv", ".html"))}, names
    assert {"flows.parquet", "summary.json", "notes.txt"} <= names
    assert (out / "notes.txt").read_text() == "mine"


def test_run_without_plots_never_imports_pandas_or_matplotlib(quickstart, tmp_path):
    # Importing them costs most of a short run's wall time; the tables are written from the
    # simulator's columns directly.
    program = (
        "import sys\nfrom tcplab.cli import main\n"
        f"code = main(['run', {str(quickstart)!r}, '--set', 'simulation.duration=1s', '--out', {str(tmp_path / 'light')!r}])\n"
        "print(code, sorted(m for m in ('pandas', 'matplotlib', 'distributed') if m in sys.modules))"
    )
    completed = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert completed.stdout.strip().splitlines()[-1] == "0 []"
    assert "cubic-0" in completed.stdout


def test_parquet_written_without_pandas_keeps_types_and_missing_values(quickstart, tmp_path):
    import pyarrow.parquet as pq

    import tcplab

    result = tcplab.run(quickstart, duration="1s")
    result.save(tmp_path / "raw")  # straight from the simulator's columns
    _ = result.flows, result.links, result.timeseries, result.queues, result.events
    result.save(tmp_path / "frames")  # from the DataFrames
    def parquet_columns(path):
        return [(c.name, c.physical_type, str(c.logical_type)) for c in pq.ParquetFile(path).schema]

    for table in ["flows", "links", "timeseries", "queues", "events"]:
        raw, frames = tmp_path / "raw" / f"{table}.parquet", tmp_path / "frames" / f"{table}.parquet"
        if pq.read_table(frames).num_rows:
            assert parquet_columns(raw) == parquet_columns(frames), table
            assert pq.read_table(raw).to_pylist() == pq.read_table(frames).to_pylist(), table
    # Unfinished flows have no completion time: null in Parquet, as pandas writes NaN.
    assert pq.read_table(tmp_path / "raw" / "flows.parquet")["completion_time_s"].null_count == 3


def test_validate_and_algorithms(quickstart, capsys):
    assert main(["validate", str(quickstart)]) == 0
    assert "initial_window = 10" in capsys.readouterr().out
    assert main(["algorithms", "CUBIC"]) == 0
    printed = capsys.readouterr().out
    assert "hystart_low_window" in printed and "RFC 9438" in printed
    # Without a name: one line per algorithm, no parameter tables.
    assert main(["algorithms"]) == 0
    overview = capsys.readouterr().out
    assert "hystart_low_window" not in overview
    import tcplab

    names = [a["name"] for a in tcplab.algorithms()]
    lines = [line for line in overview.splitlines() if line.split(" ", 1)[0] in names]
    assert [line.split(" ", 1)[0] for line in lines] == names


def test_did_you_mean_and_names_in_any_case(quickstart, tmp_path, capsys):
    assert main(["algorithms", "cubik"]) == 2
    assert "did you mean 'cubic'?" in capsys.readouterr().err
    assert main(["run", str(quickstart), "-s", "flows.0.cc=cubik", "-o", str(tmp_path / "x")]) == 2
    assert "did you mean 'cubic'?" in capsys.readouterr().err
    assert main(["run", str(quickstart), "-s", "simulation.sed=3", "-o", str(tmp_path / "x")]) == 2
    assert "did you mean `seed`?" in capsys.readouterr().err
    out = tmp_path / "upper"
    assert main(["run", str(quickstart), "-s", "flows.0.cc=BBR", "-t", "1", "-o", str(out), "--quiet"]) == 0
    import pandas as pd

    assert pd.read_parquet(out / "flows.parquet")["cc"].iloc[0] == "bbr"


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tcplab", *args], capture_output=True, text=True, cwd=cwd, check=False)


def test_errors_exit_2_and_name_the_key_without_a_traceback(quickstart, tmp_path):
    cases = [
        (["run", str(quickstart), "--set", "topology.bottleneck.rate=fast"], "topology.bottleneck.rate: 'fast' is not a rate"),
        (["run", str(quickstart), "--set", "flows.0.cc=tahoe"], "flows.0.cc: unknown algorithm 'tahoe'; available: reno, newreno, cubic"),
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


def test_duration_and_short_options_as_iperf3_users_type_them(quickstart, tmp_path, capsys):
    out = tmp_path / "short"
    assert main(["run", str(quickstart), "-t", "2", "-s", "flows.0.cc=reno", "-o", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["simulated_seconds"] == 2.0
    assert "cc = \"reno\"" in (out / "scenario.toml").read_text()
    assert main(["run", str(quickstart), "--duration", "500ms", "--no-plots", "-o", str(out), "--quiet"]) == 0
    assert json.loads((out / "summary.json").read_text())["simulated_seconds"] == 0.5
    assert not list(out.glob("*.png"))
    assert main(["run", str(quickstart), "-t", "ten", "-o", str(out)]) == 2
    assert "--duration: 'ten' is not a duration" in capsys.readouterr().err
    # The sweep commands take the same options.
    assert main(["compare", str(quickstart), "--cc", "reno", "-t", "1s", "-o", str(tmp_path / "c"), "--workers", "1",
                 "--quiet"]) == 0
    from tcplab.sweeps import load_sweep

    assert set(load_sweep(tmp_path / "c").runs["simulated_seconds"]) == {1.0}


def test_the_readme_command_list_and_the_parser_name_the_same_commands():
    import re
    from pathlib import Path

    from tcplab.cli import _parser
    from tcplab.reproduce import PAPERS

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    block = readme.split("## The command line", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    listed = set(re.findall(r"^tcplab ([a-z-]+)", block, flags=re.MULTILINE))
    parser = _parser()
    commands = next(action for action in parser._actions if action.dest == "command").choices
    assert listed == set(commands)
    # Every paper is in the README's reproduce line and in the command's help.
    reproduce_line = next(line for line in block.splitlines() if line.startswith("tcplab reproduce"))
    help_text = commands["reproduce"].format_help()
    for paper in PAPERS:
        assert paper in reproduce_line and paper in help_text, paper


def test_the_summary_shows_udp_loss_and_jitter(quickstart, tmp_path, capsys):
    import pandas as pd

    out = tmp_path / "udp"
    udp = '{protocol="udp",rate="20Mbps"}'
    assert main(["run", str(quickstart), "-t", "3", "-s", f"flows.1={udp}", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "UDP flows" in printed and "jitter ms" in printed and "loss" in printed
    flows = pd.read_parquet(out / "flows.parquet")
    udp_row = flows[flows["protocol"] == "udp"].iloc[0]
    # Queueing behind CUBIC changes the datagrams' delays, so the jitter is positive; TCP has none.
    assert udp_row["jitter_ms"] > 0 and flows.loc[flows["protocol"] == "tcp", "jitter_ms"].isna().all()


def test_the_summary_lists_the_first_flows_of_many_and_counts_the_rest(quickstart, tmp_path, capsys):
    from tcplab.cli import SUMMARY_FLOWS

    out = tmp_path / "many"
    assert main(["run", str(quickstart), "-t", "0.2", "-s", "flows.0.count=40", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"the first {SUMMARY_FLOWS} of 41 TCP flows (all in flows.parquet)" in printed
    assert "cubic-19" in printed and "cubic-20" not in printed


def test_the_readme_algorithm_table_lists_every_registered_algorithm():
    import re
    from pathlib import Path

    import tcplab

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    table = readme.split("## Algorithms", 1)[1].split("\n\n", 2)[1]
    listed = re.findall(r"^\| `([a-z_0-9]+)` \|", table, flags=re.MULTILINE)
    assert listed == [a["name"] for a in tcplab.algorithms()]


def test_validate_shows_each_buffer_in_packets_and_bdps_and_reds_thresholds(quickstart, capsys):
    assert main(["validate", str(quickstart), "-s", "topology.bottleneck.queue=red"]) == 0
    printed = capsys.readouterr().out
    # 50 Mbit/s x 30 ms = 187.5 KB = 125 packets of 1500 B; RED's defaults are a sixth and half.
    line = next(line for line in printed.splitlines() if line.startswith("#   bottleneck forward"))
    assert "50 Mbit/s, 13 ms, buffer 187.5 KB = 125 packets = 1 BDP (BDP 187.5 KB at 30 ms)" in line, line
    assert "red: min_th 20.83 packets, max_th 62.5 packets" in line, line
    # The output is still a scenario: the view is in comments.
    import tomllib

    tomllib.loads(printed)


def test_validate_summarises_a_fat_tree_and_run_runs_it(quickstart, tmp_path, capsys):
    fat_tree = quickstart.parent / "fat-tree-permutation.toml"
    assert main(["validate", str(fat_tree)]) == 0
    printed = capsys.readouterr().out
    import tomllib

    resolved = tomllib.loads(printed)
    # The permutation became 16 flows, each host sending once and receiving once.
    flows = resolved["flows"]
    assert len(flows) == 16 and "traffic" not in resolved
    assert sorted(f["from"] for f in flows) == sorted(f["to"] for f in flows) == sorted(f"h{i}" for i in range(16))
    assert resolved["topology"]["routing"] == "ecmp" and resolved["topology"]["agg_core"]["rate"] == "10Gbps"
    # 96 link directions share a handful of lines: one per distinct setting.
    view = [line for line in printed.splitlines() if line.startswith("#   ")]
    assert view[0] == "#   36 nodes (20 switches or routers, 16 hosts), 96 link directions, 5 distinct settings:", view[0]
    assert len(view) == 6 and sum(1 for line in view if " more: 10 Gbit/s, 0.001 ms, buffer 100 packets" in line) >= 3
    out = tmp_path / "fat"
    assert main(["run", str(fat_tree), "--quiet", "--out", str(out)]) == 0
    import pyarrow.parquet as pq

    assert pq.read_table(out / "flows.parquet").num_rows == 16
