"""The simulator next to the machine's own kernel, with the Linux back-end: two flows of one
algorithm over 50 Mbit/s and a 40 ms base RTT, with a drop-tail buffer of 1 or 8
bandwidth-delay products. The algorithms are the kernel's own (cubic, reno, bbr) and every one
tcplab loads into the kernel as BPF (python/tcplab/backends/linux/bpf/). Each case is
`tcplab compare-backends` on the scenario below; the RTT percentiles leave out the first 5 s
(the start-up).

    sudo python3 scripts/linux_comparison.py [--quick] [--algorithm NAME ...]

Writes docs/linux-backend/<algorithm>-<buffer>bdp/ (comparison.csv, overlay.png) and
docs/linux-backend/comparison.csv with every case's all-flows row (a run of some algorithms keeps
the other rows); docs/linux-backend.md discusses them. Full runs: the kernel's algorithms 60 s
each, reno on 8 BDP 240 s (several sawtooth cycles); tcplab's BPF algorithms 30 s each (about 25
minutes for all of them). --quick: 20 s each. --spread RUNS: how two cubic flows split the link
from run to run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

import tcplab
from tcplab.backends.linux.bpf_build import bpf_algorithms
from tcplab.compare_backends import compare_backends, overlay_figure

ROOT = Path(__file__).resolve().parent.parent
WARM_UP_S = 5.0
KERNEL_ALGORITHMS = ("cubic", "reno", "bbr")
# Within these the two engines agree (issue 30's targets).
GOODPUT_TOLERANCE = 0.05
RTT_TOLERANCE = 0.10


def seconds_for(algorithm: str, buffer_bdp: int, quick: bool) -> int:
    if quick:
        return 20
    if algorithm not in KERNEL_ALGORITHMS:
        return 30
    return 240 if (algorithm, buffer_bdp) == ("reno", 8) else 60


def scenario(algorithm: str, buffer_bdp: int, seconds: int) -> dict:
    return {
        "name": f"{algorithm}-{buffer_bdp}bdp",
        "simulation": {"duration": f"{seconds}s", "sample_interval": "100ms"},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "50Mbps", "delay": "18ms", "buffer": f"{buffer_bdp}BDP"},
            "access": {"rate": "1Gbps", "delay": "1ms", "buffer": "10000p"},
        },
        "flows": [{"cc": algorithm, "count": 2}],
    }


def spread(runs: int) -> None:
    """How two cubic flows on 1 BDP split the link over 20 s: on Linux, run after run; in the
    simulator (deterministic), as the second flow starts 0.1 to 5 ms after the first."""
    for run in range(runs):
        result = tcplab.run(scenario("cubic", 1, 20), backend="linux")
        print(f"Linux run {run}: goodput {' / '.join(f'{g / 1e6:.2f}' for g in result.flows['goodput_bps'])} Mb/s")
    for offset_us in (0, 100, 500, 1000, 2000, 5000):
        shifted = scenario("cubic", 1, 20)
        shifted["flows"] = [{"cc": "cubic"}, {"cc": "cubic", "start": f"{offset_us}us"}]
        result = tcplab.run(shifted)
        print(f"simulator, second flow {offset_us / 1000:g} ms later: goodput "
              f"{' / '.join(f'{g / 1e6:.2f}' for g in result.flows['goodput_bps'])} Mb/s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 s runs")
    parser.add_argument("--spread", type=int, metavar="RUNS",
                        help="instead: how two cubic flows split the link, RUNS times on Linux and in the simulator")
    parser.add_argument("--algorithm", action="append", choices=[*KERNEL_ALGORITHMS, *bpf_algorithms()],
                        help="run only this algorithm (repeatable)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "linux-backend")
    parser.add_argument("--table", action="store_true",
                        help="instead: print comparison.csv as the markdown table of docs/linux-backend.md")
    args = parser.parse_args()
    if args.spread:
        spread(args.spread)
        return 0
    if args.table:
        print(markdown_table(pd.read_csv(args.out / "comparison.csv")))
        return 0
    algorithms = args.algorithm or [*KERNEL_ALGORITHMS, *bpf_algorithms()]
    rows = [compare_case(algorithm, buffer_bdp, seconds_for(algorithm, buffer_bdp, args.quick), args.out)
            for algorithm in algorithms for buffer_bdp in (1, 8)]
    frame = pd.DataFrame(rows)
    summary = args.out / "comparison.csv"
    if args.algorithm and summary.exists():
        frame = pd.concat([pd.read_csv(summary).query("algorithm not in @algorithms"), frame], ignore_index=True)
    frame.to_csv(summary, index=False)
    print(f"written: {args.out}/")
    return 0


def markdown_table(frame: pd.DataFrame) -> str:
    """One row per algorithm: both buffers' goodput and median sRTT (simulator / Linux, relative
    difference), retransmitted segments, and whether both targets hold."""
    def cell(row: pd.Series, metric: str, digits: int) -> str:
        return (f"{row[metric + '_simulator']:.{digits}f} / {row[metric + '_linux']:.{digits}f} "
                f"({row[metric + '_difference']:+.1%})")

    lines = ["| algorithm (kernel) | s | buffer | goodput (Mb/s) | RTT p50 (ms) | retransmitted | within 5% / 10% |",
             "|---|---|---|---|---|---|---|"]
    for _, row in frame.sort_values(["algorithm", "buffer_bdp"], key=_registry_order).iterrows():
        within = "yes" if (abs(row["goodput_mbps_difference"]) <= GOODPUT_TOLERANCE
                           and abs(row["rtt_p50_ms_difference"]) <= RTT_TOLERANCE) else "**no**"
        kernel = row.get("kernel_congestion_control")
        name = f"{row['algorithm']} (`{kernel if isinstance(kernel, str) else row['algorithm']}`)"
        lines.append(f"| {name} | {row['seconds']} | {row['buffer_bdp']} BDP | {cell(row, 'goodput_mbps', 2)} | "
                     f"{cell(row, 'rtt_p50_ms', 1)} | {row['retransmitted_segments_simulator']:.0f} / "
                     f"{row['retransmitted_segments_linux']:.0f} | {within} |")
    return "\n".join(lines)


def _registry_order(column: pd.Series) -> pd.Series:
    """Algorithms in `tcplab algorithms` order; other columns as they are."""
    if column.name != "algorithm":
        return column
    order = {algorithm["name"]: index for index, algorithm in enumerate(tcplab._core.algorithms())}
    return column.map(order)


def compare_case(algorithm: str, buffer_bdp: int, seconds: int, out: Path) -> dict:
    started = time.monotonic()
    results, table = compare_backends(scenario(algorithm, buffer_bdp, seconds), warm_up_s=WARM_UP_S)
    case = out / f"{algorithm}-{buffer_bdp}bdp"
    case.mkdir(parents=True, exist_ok=True)
    table.to_csv(case / "comparison.csv", index=False)
    overlay_figure(results).savefig(case / "overlay.png", dpi=90)
    linux = results["linux"].summary
    total = table.iloc[-1].to_dict()
    total.update({"algorithm": algorithm, "buffer_bdp": buffer_bdp, "seconds": seconds,
                  "kernel_congestion_control": linux["kernel_congestion_controls"].split("=", 1)[-1],
                  "timeouts_simulator": int(results["simulator"].flows["timeouts"].sum()),
                  "timeouts_linux": float(results["linux"].flows["timeouts"].sum()),
                  "emulator_lateness_p50_ms": linux["emulator_lateness_p50_ms"],
                  "emulator_lateness_p99_ms": linux["emulator_lateness_p99_ms"],
                  "kernel": linux["kernel"]})
    total["within_targets"] = bool(abs(total["goodput_mbps_difference"]) <= GOODPUT_TOLERANCE
                                   and abs(total["rtt_p50_ms_difference"]) <= RTT_TOLERANCE)
    print(f"{algorithm:9} {buffer_bdp} BDP {seconds:3} s: goodput {total['goodput_mbps_simulator']:.2f} / "
          f"{total['goodput_mbps_linux']:.2f} Mb/s ({total['goodput_mbps_difference']:+.1%}), RTT p50 "
          f"{total['rtt_p50_ms_simulator']:.1f} / {total['rtt_p50_ms_linux']:.1f} ms "
          f"({total['rtt_p50_ms_difference']:+.1%}), retx {total['retransmitted_segments_simulator']:.0f} / "
          f"{total['retransmitted_segments_linux']:.0f}; {time.monotonic() - started:.0f} s", flush=True)
    return total

if __name__ == "__main__":
    sys.exit(main())
