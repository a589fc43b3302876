"""How far the fidelity matrix's metrics move when each flow starts a little late, in the simulator.

The kernel's senders never start exactly when a scenario says: each endpoint process wakes after
its start time and writes its first data a little after connect() returns (a Linux run's summary
measures it, `start_lateness_*`). The matrix (benches/linux_fidelity.py) starts the simulator's
flows exactly on time, so each of its cases is one outcome. This runs chosen cases again with
every flow starting late by a uniform draw in [0, --lateness-ms) (numpy seed = the run), and prints
per metric the on-time run, the mean and range of the late-started runs, and the kernel's runs
from docs/linux-fidelity/runs.csv: where the late-started runs spread over more than a metric's
tolerance, sub-millisecond timing alone moves that metric by more than the tolerance.

    python3 benches/start_sensitivity.py [--lateness-ms 1] [--runs 10] [CASE ...]

Without cases it runs every case outside the targets or with disagreeing kernel runs
(docs/linux-fidelity/cases.csv). Bulk cases only; seconds per case.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

import tcplab

sys.path.insert(0, str(Path(__file__).resolve().parent))
import linux_fidelity  # noqa: E402  (benches/ is not a package)

METRICS = ["goodput_mbps", "rtt_p50_ms", "retransmitted_segments", "jain_index", "slow_start_exit_s",
           "slow_start_exit_cwnd_kb"]


def start_ms(flow: dict) -> float:
    """A flow's start in the scenario, in ms ("12ms", "0.5s" or none)."""
    text = flow.get("start", "0ms")
    return float(text[:-2]) if text.endswith("ms") else float(text[:-1]) * 1000


def started_late(scenario: dict, seed: int, lateness_ms: float) -> dict:
    """The scenario with every flow starting late by a uniform draw in [0, lateness_ms)."""
    rng = np.random.default_rng(seed)
    flows = [dict(flow, start=f"{start_ms(flow) + rng.uniform(0, lateness_ms):.6f}ms") for flow in scenario["flows"]]
    return dict(scenario, flows=flows)


BULK_CASE = re.compile(r"([a-z0-9_]+)-(\d+)f-(\d+(?:\.\d+)?)bdp-(\d+)ms")


def bulk_case(name: str) -> dict:
    """The matrix's scenario of a bulk case named like cubic-16f-1bdp-40ms."""
    match = BULK_CASE.fullmatch(name)
    if match is None:
        raise ValueError("not a bulk case's name")
    algorithm, flows, buffer, rtt = match.groups()
    return linux_fidelity.bulk_scenario(algorithm, int(flows), float(buffer), int(rtt))


def spread(name: str, runs: int, lateness_ms: float, kernel: pd.DataFrame) -> pd.DataFrame:
    scenario = bulk_case(name)
    on_time = linux_fidelity.run_metrics(tcplab.run(scenario))
    late = pd.DataFrame([linux_fidelity.run_metrics(tcplab.run(started_late(scenario, seed, lateness_ms)))
                         for seed in range(1, runs + 1)])
    measured = kernel[(kernel["case"] == name) & (kernel["engine"] == "linux")]
    rows = []
    for metric in METRICS:
        values, theirs = late[metric].astype(float), measured[metric].astype(float)
        rows.append({"case": name, "metric": metric, "on_time": on_time[metric], "late_mean": values.mean(),
                     "late_min": values.min(), "late_max": values.max(), "kernel_mean": theirs.mean(),
                     "kernel_min": theirs.min(), "kernel_max": theirs.max()})
    return pd.DataFrame(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="bulk cases, e.g. cubic-16f-1bdp-40ms")
    parser.add_argument("--lateness-ms", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    if args.lateness_ms < 0 or args.runs < 1:
        parser.error(f"--lateness-ms {args.lateness_ms} must be 0 or more and --runs {args.runs} at least 1")
    verdicts = pd.read_csv(linux_fidelity.OUT / "cases.csv")
    names = args.cases or sorted({case for case in verdicts[verdicts["within"] != "yes"]["case"]
                                  if not case.startswith("short-") and "-1f-" not in case})
    kernel = pd.read_csv(linux_fidelity.OUT / "runs.csv")
    for name in names:
        try:
            table = spread(name, args.runs, args.lateness_ms, kernel)
        except (ValueError, tcplab.ScenarioError) as error:
            print(f"error: case {name!r}: {error} (bulk cases are named like cubic-16f-1bdp-40ms)", file=sys.stderr)
            return 2
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
