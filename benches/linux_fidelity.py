"""The fidelity matrix (issue 32): the simulator's `linux` profile beside this machine's kernel (the
Linux back-end) on the same scenarios, metric by metric, against fixed tolerances.

Cases: cubic, reno and bbr x 1, 4 and 16 flows x a drop-tail buffer of 0.5, 1 and 8
bandwidth-delay products x a base RTT of 10, 40 and 150 ms, on a 50 Mbit/s dumbbell (1 Gbit/s,
1 ms access links; flow i starts at i x START_INTERVAL_MS); then short transfers (Poisson
arrivals, sizes from a bounded Pareto distribution from 10 KB to 10 MB, shape 1.2, mean 45 KB) at
30% and 70% of a 10 Mbit/s, 40 ms dumbbell, and the 30% load beside two bulk cubic flows. Each case runs `--seeds` times on the
simulator (seeds 1, 2, ...) and `--kernel-runs` times on the kernel (it is not deterministic); a
metric compares the means.

    sudo python3 benches/linux_fidelity.py [--quick] [--only TEXT] [--kernel-runs N] [--seeds N]
    sudo python3 benches/linux_fidelity.py --more-kernel-runs N   # more kernel runs per saved case
    python3 benches/linux_fidelity.py --rerun-simulator            # the simulator's runs again
    python3 benches/linux_fidelity.py --report      # the table and figure from the saved runs
    python3 benches/linux_fidelity.py --what-if gso=true   # the simulator with a [tcp] option set
    python3 benches/linux_fidelity.py --what-if 'topology.access.reverse.jitter = {...}'  # any key

Writes docs/linux-fidelity/runs.csv (one row per run), cases.csv (one row per case and metric,
with the verdict), matrix.md (the table) and matrix.png (simulator against kernel per metric, the
y = x line and the tolerance band); docs/linux-fidelity.md discusses them. The full matrix takes
about an hour; --quick runs two cases (a minute). --what-if KEY=VALUE reruns the simulator with
that [tcp] option (or, with a dotted key from a scenario section, any scenario setting) against
the saved kernel runs and writes what-if-KEY-VALUE.csv (the verdicts beside the matrix's),
leaving the matrix as it is.
"""

from __future__ import annotations

import argparse
import copy
import math
import re
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

import tcplab

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "linux-fidelity"
# The page that discusses the matrix; --report rewrites its tables between these markers, so the
# page never shows a table older than the runs.
PAGE = ROOT / "docs" / "linux-fidelity.md"
TABLES_BEGIN = "<!-- tables written by benches/linux_fidelity.py --report: do not edit by hand -->"
TABLES_END = "<!-- end of the tables written by --report -->"
METRIC_TITLES = {
    "goodput_mbps": "goodput",
    "rtt_p50_ms": "median smoothed RTT",
    "retransmitted_segments": "retransmitted segments",
    "slow_start_exit_s": "first reduction: time",
    "slow_start_exit_cwnd_kb": "first reduction: ssthresh",
    "fct_p50_s": "completion time, median",
    "fct_p95_s": "completion time, 95th percentile",
    "jain_index": "Jain's index",
}
ALGORITHMS = ("cubic", "reno", "bbr")
FLOW_COUNTS = (1, 4, 16)
BUFFERS_BDP = (0.5, 1, 8)
BASE_RTTS_MS = (10, 40, 150)
# Issue 32's targets: relative tolerance, or an absolute floor where counts are small.
TOLERANCES = {
    "goodput_mbps": (0.05, 0.0),
    "rtt_p50_ms": (0.10, 0.0),
    "retransmitted_segments": (0.25, 20.0),
    "slow_start_exit_s": (0.15, 0.0),
    "slow_start_exit_cwnd_kb": (0.15, 0.0),
    "fct_p50_s": (0.10, 0.0),
    "fct_p95_s": (0.20, 0.0),
    "jain_index": (0.0, 0.05),
}
SAMPLE_INTERVAL = "10ms"
# Flow i of a bulk case starts at i x this. Started in the same nanosecond, the simulator's flows
# run their slow-start rounds in lockstep, while the kernel's endpoints (separate processes woken
# together) send their SYNs over about 3 ms; started this far apart, both engines keep the same
# order and spacing (each endpoint wakes alone).
START_INTERVAL_MS = 2
SHORT_RATE_MBPS = 10
SHORT_ARRIVALS_S = 8.0


def bulk_scenario(algorithm: str, flows: int, buffer_bdp: float, rtt_ms: int) -> dict:
    # Base RTT = 2 x (access 1 ms + bottleneck + access 1 ms).
    bottleneck_ms = rtt_ms / 2 - 2
    seconds = 15 if rtt_ms >= 150 else 10
    return {
        "name": f"{algorithm}-{flows}f-{buffer_bdp:g}bdp-{rtt_ms}ms",
        "simulation": {"duration": f"{seconds}s", "sample_interval": SAMPLE_INTERVAL},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "50Mbps", "delay": f"{bottleneck_ms:g}ms", "buffer": f"{buffer_bdp:g}BDP"},
            "access": {"rate": "1Gbps", "delay": "1ms", "buffer": "10000p"},
        },
        "flows": [{"cc": algorithm, "name": f"{algorithm}-{i}", "start": f"{i * START_INTERVAL_MS}ms"}
                  for i in range(flows)],
    }


def transfer_sizes(count: int, rng: np.random.Generator) -> np.ndarray:
    """Bounded Pareto sizes (shape 1.2 on [10 KB, 10 MB]) by inversion, in whole bytes."""
    shape, low, high = 1.2, 10_000.0, 10_000_000.0
    u = rng.random(count)
    ratio = (low / high) ** shape
    return np.floor(low / (1 - u * (1 - ratio)) ** (1 / shape)).astype(int)


def short_flow_scenario(load: float, bulk_flows: int) -> dict:
    """Poisson arrivals for SHORT_ARRIVALS_S at `load` of the bottleneck, drawn here (numpy seed
    32) so that both engines run the very same transfers; `bulk_flows` cubic flows beside them."""
    rng = np.random.default_rng(32)
    mean_size = 44_900  # the distribution's mean, bytes
    rate = load * SHORT_RATE_MBPS * 1e6 / 8 / mean_size
    starts = np.cumsum(rng.exponential(1 / rate, size=int(rate * SHORT_ARRIVALS_S * 2) + 20))
    starts = starts[starts < SHORT_ARRIVALS_S]
    sizes = transfer_sizes(len(starts), rng)
    flows = [{"cc": "cubic", "count": bulk_flows, "name": "bulk"}] if bulk_flows else []
    flows += [{"cc": "cubic", "name": f"t{i}", "start": f"{start:.6f}s", "size": f"{size}B"}
              for i, (start, size) in enumerate(zip(starts, sizes))]
    name = f"short-{round(load * 100)}pct" + (f"-with-{bulk_flows}-bulk" if bulk_flows else "")
    return {
        "name": name,
        "simulation": {"duration": f"{SHORT_ARRIVALS_S + 7:g}s", "sample_interval": "100ms"},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": f"{SHORT_RATE_MBPS}Mbps", "delay": "18ms", "buffer": "1BDP"},
            "access": {"rate": "1Gbps", "delay": "1ms", "buffer": "10000p"},
        },
        "flows": flows,
    }


def cases(quick: bool) -> list[dict]:
    if quick:
        return [bulk_scenario("cubic", 1, 8, 40)]
    bulk = [bulk_scenario(a, n, b, r) for a in ALGORITHMS for n in FLOW_COUNTS for b in BUFFERS_BDP for r in BASE_RTTS_MS]
    return bulk + [short_flow_scenario(0.3, 0), short_flow_scenario(0.7, 0), short_flow_scenario(0.3, 2)]


def run_metrics(result: tcplab.Result) -> dict:
    """One run's metrics; NaN where a metric does not apply (no reduction, no transfers)."""
    flows = result.flows
    bulk = flows[flows["size_bytes"].isna()]
    series = result.timeseries
    duration = float(result.summary.get("duration_s") or series["time_s"].max())
    settled = series[series["time_s"] >= min(2.0, duration / 4)]
    metrics = {
        "goodput_mbps": bulk["goodput_bps"].sum() / 1e6 if len(bulk) else math.nan,
        "rtt_p50_ms": settled["srtt_ms"].median(),
        "retransmitted_segments": float(flows["retransmitted_segments"].sum()),
        "jain_index": _jain(bulk["goodput_bps"].to_numpy()) if len(bulk) > 1 else math.nan,
    }
    first = series[series["flow_id"] == int(flows["flow_id"].iloc[0])]
    reduced = first[first["ssthresh_bytes"].notna()]
    start = float(flows["start_s"].iloc[0])
    metrics["slow_start_exit_s"] = float(reduced["time_s"].iloc[0]) - start if len(reduced) else math.nan
    metrics["slow_start_exit_cwnd_kb"] = float(reduced["ssthresh_bytes"].iloc[0]) / 1e3 if len(reduced) else math.nan
    completed = flows["completion_time_s"].dropna()
    transfers = flows["size_bytes"].notna().sum()
    metrics["fct_p50_s"] = float(completed.median()) if transfers else math.nan
    metrics["fct_p95_s"] = float(completed.quantile(0.95)) if transfers else math.nan
    metrics["transfers_completed"] = f"{len(completed)}/{transfers}" if transfers else ""
    return metrics


def _jain(values: np.ndarray) -> float:
    return float(values.sum() ** 2 / (len(values) * (values ** 2).sum())) if values.any() else math.nan


def run_case(scenario: dict, seeds: int, kernel_runs: int, first_kernel_run: int = 1) -> list[dict]:
    """`seeds` simulator runs and `kernel_runs` kernel runs, the kernel's numbered from
    `first_kernel_run` (runs added to a case already measured continue its numbering)."""
    rows = []
    for engine, runs, first in (("simulator", seeds, 1), ("linux", kernel_runs, first_kernel_run)):
        for index in range(first - 1, first - 1 + runs):
            spec = dict(scenario, simulation=dict(scenario["simulation"], seed=index + 1))
            began = time.monotonic()
            result = tcplab.run(spec, backend=engine)
            row = {"case": scenario["name"], "engine": engine, "run": index + 1,
                   "wall_s": round(time.monotonic() - began, 1), **run_metrics(result)}
            if engine == "linux":
                row["emulator_late_p50_ms"] = result.summary.get("emulator_lateness_p50_ms", math.nan)
                row["start_late_p50_ms"] = result.summary.get("start_lateness_p50_ms", math.nan)
            rows.append(row)
    return rows


def verdicts(runs: pd.DataFrame) -> pd.DataFrame:
    """Per case and metric: both engines' means, the kernel's own spread, the difference and
    whether it is within the tolerance."""
    rows = []
    for case, frame in runs.groupby("case", sort=False):
        for metric, (relative, absolute) in TOLERANCES.items():
            values = {engine: frame[frame["engine"] == engine][metric].astype(float) for engine in ("simulator", "linux")}
            if values["simulator"].isna().all() or values["linux"].isna().all():
                continue
            simulator, kernel = values["simulator"].mean(), values["linux"].mean()
            spread = values["linux"].max() - values["linux"].min()
            difference = kernel - simulator
            allowed = max(relative * abs(simulator), absolute)
            if abs(difference) <= allowed:
                within = "yes"
            elif _kernel_disagrees(metric, values["linux"], simulator, allowed):
                within = "kernel runs disagree"
            else:
                within = "no"
            rows.append({"case": case, "metric": metric, "simulator": simulator, "kernel": kernel,
                         "kernel_spread": spread, "difference": difference,
                         "relative": difference / simulator if simulator else math.nan, "within": within})
    return pd.DataFrame(rows)


def _kernel_disagrees(metric: str, kernel_runs: pd.Series, simulator: float, allowed: float) -> bool:
    """Whether the kernel's own runs lie further apart than the tolerance (taken at their mean),
    so that their mean is no reference to hold the simulator to. Issue 32 exempts Jain's index
    then; for the other metrics the simulator must also lie within the tolerance of one of the
    kernel's runs (it agrees with some of them), or the miss is the simulator's."""
    relative, absolute = TOLERANCES[metric]
    spread = kernel_runs.max() - kernel_runs.min()
    if spread <= max(relative * abs(kernel_runs.mean()), absolute):
        return False
    if metric == "jain_index":
        return True
    return bool(((kernel_runs - simulator).abs() <= allowed).any())


def markdown(table: pd.DataFrame) -> str:
    metrics = list(TOLERANCES)
    header = "| case | " + " | ".join(metrics) + " |"
    lines = [header, "|" + "---|" * (len(metrics) + 1)]
    for case, frame in table.groupby("case", sort=False):
        cells = []
        for metric in metrics:
            row = frame[frame["metric"] == metric]
            if row.empty:
                cells.append("-")
                continue
            r = row.iloc[0]
            mark = {"yes": "", "no": " **x**", "kernel runs disagree": " (k)"}[r["within"]]
            cells.append(f"{_short(r['simulator'])} / {_short(r['kernel'])}{mark}")
        lines.append(f"| {case} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def tally(table: pd.DataFrame) -> str:
    """The verdicts counted per metric, as a markdown table."""
    lines = ["| metric | within | outside | kernel runs disagree |", "|---|---|---|---|"]
    for metric in TOLERANCES:
        counts = table.loc[table["metric"] == metric, "within"].value_counts()
        cells = [str(int(counts.get(verdict, 0))) for verdict in ("yes", "no", "kernel runs disagree")]
        lines.append(f"| {METRIC_TITLES[metric]} | " + " | ".join(cells) + " |")
    counts = table["within"].value_counts()
    total = (f"{len(table)} case-metrics: **{int(counts.get('yes', 0))} within, {int(counts.get('no', 0))} "
             f"outside, {int(counts.get('kernel runs disagree', 0))} where the kernel's own runs disagree**.")
    return total + "\n\n" + "\n".join(lines) + "\n"


def write_into_page(table: pd.DataFrame) -> None:
    """Replaces the page's tables (between the markers) with the ones from these runs."""
    page = PAGE.read_text(encoding="utf-8")
    begin, end = page.find(TABLES_BEGIN), page.find(TABLES_END)
    if begin < 0 or end < begin:
        print(f"warning: {PAGE} has no markers for the tables; it is left as it is", file=sys.stderr)
        return
    tables = f"{TABLES_BEGIN}\n\n{markdown(table)}\n{tally(table)}\n"
    PAGE.write_text(page[:begin] + tables + page[end:], encoding="utf-8")


def _short(value: float) -> str:
    return "-" if not math.isfinite(value) else (f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}")


def figure(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = [m for m in TOLERANCES if (table["metric"] == m).any()]
    columns = 4
    rows = math.ceil(len(metrics) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4 * columns, 3.8 * rows), squeeze=False)
    for axis, metric in zip(axes.flat, metrics):
        frame = table[table["metric"] == metric]
        relative, absolute = TOLERANCES[metric]
        top = float(max(frame["simulator"].max(), frame["kernel"].max())) * 1.1 or 1.0
        line = np.linspace(0, top, 100)
        band = np.maximum(relative * line, absolute)
        axis.fill_between(line, line - band, line + band, color="tab:green", alpha=0.15, label="tolerance")
        axis.plot(line, line, color="black", linewidth=0.8, label="y = x")
        colours = frame["within"].map({"yes": "tab:blue", "no": "tab:red", "kernel runs disagree": "tab:orange"})
        axis.scatter(frame["simulator"], frame["kernel"], s=14, c=colours)
        axis.set_title(metric)
        axis.set_xlabel("simulator")
        axis.set_ylabel("kernel")
        axis.set_xlim(0, top)
        axis.set_ylim(0, top)
    for axis in list(axes.flat)[len(metrics):]:
        axis.axis("off")
    axes.flat[0].legend(fontsize="small")
    fig.suptitle("linux profile (x) against the kernel (y), one point per case: blue within, red outside, "
                 "orange where the kernel's own runs disagree")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def report() -> int:
    if not (OUT / "runs.csv").exists():
        print(f"error: no runs in {OUT}: run the matrix first (without --report)", file=sys.stderr)
        return 2
    runs = pd.read_csv(OUT / "runs.csv")
    table = verdicts(runs)
    table.to_csv(OUT / "cases.csv", index=False)
    (OUT / "matrix.md").write_text(markdown(table), encoding="utf-8")
    figure(table, OUT / "matrix.png")
    write_into_page(table)
    counted = table["within"].value_counts().to_dict()
    print(f"{len(table)} case-metrics: {counted}; {OUT / 'matrix.md'}, {OUT / 'matrix.png'}, {PAGE}")
    return 0


# Scenario sections a --what-if key may start with; any other key is a [tcp] option.
SCENARIO_SECTIONS = ("simulation", "topology", "tcp")


def with_setting(scenario: dict, key: str, value: object) -> dict:
    """The scenario with one more setting: `key` is dotted from a scenario section
    (topology.access.reverse.jitter) or names a [tcp] option (gso)."""
    path = key.split(".")
    if path[0] not in SCENARIO_SECTIONS:
        path = ["tcp", *path]
    changed = copy.deepcopy(scenario)
    table = changed
    for part in path[:-1]:
        table = table.setdefault(part, {})
    table[path[-1]] = value
    return changed


def what_if(option: str, chosen: list[dict], seeds: int) -> int:
    """The verdicts with the simulator's runs redone under one more setting, beside the matrix's:
    a model change tried on every case before it becomes a default, or a condition of the
    kernel's test-bed tried on the simulator."""
    key, _, text = (part.strip() for part in option.partition("="))
    try:
        value = tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError as error:
        print(f"error: --what-if {option!r}: expected KEY=VALUE with a TOML value, e.g. gso=true ({error})",
              file=sys.stderr)
        return 2
    path = OUT / "runs.csv"
    if not path.exists():
        print(f"error: no runs in {OUT}: run the matrix first", file=sys.stderr)
        return 2
    saved = pd.read_csv(path)
    kernel = saved[saved["engine"] == "linux"]
    measured = [scenario for scenario in chosen if scenario["name"] in set(kernel["case"])]
    rows = []
    for index, scenario in enumerate(measured, 1):
        try:
            rows += run_case(with_setting(scenario, key, value), seeds, 0)
        except tcplab.ScenarioError as error:
            print(f"error: --what-if {option!r}: {error}", file=sys.stderr)
            return 2
        print(f"[{index}/{len(measured)}] {scenario['name']}", flush=True)
    names = {scenario["name"] for scenario in measured}
    before = verdicts(saved[saved["case"].isin(names)])
    after = verdicts(pd.concat([kernel[kernel["case"].isin(names)], pd.DataFrame(rows)], ignore_index=True))
    table = before.merge(after, on=["case", "metric"], suffixes=("_matrix", "_what_if"))
    columns = ["case", "metric", "kernel_matrix", "simulator_matrix", "simulator_what_if", "within_matrix",
               "within_what_if"]
    out = OUT / f"what-if-{key}-{re.sub(r'[^A-Za-z0-9.]+', '_', text).strip('_')}.csv"
    table[columns].rename(columns={"kernel_matrix": "kernel"}).to_csv(out, index=False)
    changed = table[table["within_matrix"] != table["within_what_if"]]
    print(f"the matrix: {before['within'].value_counts().to_dict()}")
    print(f"with {key} = {text}: {after['within'].value_counts().to_dict()}")
    for row in changed.itertuples():
        print(f"  {row.case}, {METRIC_TITLES[row.metric]}: kernel {_short(row.kernel_matrix)}, simulator "
              f"{_short(row.simulator_matrix)} -> {_short(row.simulator_what_if)} "
              f"({row.within_matrix} -> {row.within_what_if})")
    print(f"{len(changed)} verdicts changed; all in {out}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one case only")
    parser.add_argument("--only", help="run the cases whose name contains this text")
    parser.add_argument("--kernel-runs", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--more-kernel-runs", type=int, default=0, metavar="N",
                        help="add N kernel runs to each chosen case already in runs.csv")
    parser.add_argument("--rerun-simulator", action="store_true",
                        help="replace the simulator's runs of each chosen case already in runs.csv (after a model change)")
    parser.add_argument("--report", action="store_true", help="rebuild the table and figure from runs.csv")
    parser.add_argument("--what-if", metavar="KEY=VALUE",
                        help="rerun the simulator with this [tcp] option (e.g. gso=true) or dotted scenario key "
                             "(e.g. topology.access.reverse.jitter={...}) against the saved kernel runs; print and "
                             "save the verdicts beside the matrix's, leaving the matrix as it is")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.report:
        return report()
    if args.more_kernel_runs < 0:
        parser.error(f"--more-kernel-runs {args.more_kernel_runs}: must be 0 or more")
    chosen = [c for c in cases(args.quick) if not args.only or args.only in c["name"]]
    if args.what_if:
        return what_if(args.what_if, chosen, args.seeds)
    path = OUT / "runs.csv"
    done = pd.read_csv(path) if path.exists() and not args.quick else pd.DataFrame()
    finished = set(done["case"]) if len(done) else set()
    for index, scenario in enumerate(chosen, 1):
        began = time.monotonic()
        if scenario["name"] not in finished:
            rows = run_case(scenario, args.seeds, args.kernel_runs)
        elif args.rerun_simulator:
            done = done[~((done["case"] == scenario["name"]) & (done["engine"] == "simulator"))]
            rows = run_case(scenario, args.seeds, 0)
        elif args.more_kernel_runs:
            kernel = done[(done["case"] == scenario["name"]) & (done["engine"] == "linux")]
            rows = run_case(scenario, 0, args.more_kernel_runs, first_kernel_run=int(kernel["run"].max()) + 1)
        else:
            continue
        done = pd.concat([done, pd.DataFrame(rows)], ignore_index=True)
        done.to_csv(path, index=False)
        print(f"[{index}/{len(chosen)}] {scenario['name']}: {time.monotonic() - began:.0f} s", flush=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
