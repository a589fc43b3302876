"""The simulator (tcp.profile = "ns3") beside ns-3 3.44 itself on the cases docs/ns3-backend.md
lists: every algorithm ns-3 has on a two-flow dumbbell with a 1-BDP and an 8-BDP drop-tail
buffer, ten flows at 100 Mbit/s, 0.5% random loss (ten seeds), RED with ECN, FQ-CoDel, PIE, and DCTCP
on a step-marking queue.

For every case it writes docs/ns3-backend/<case>/ (the first seed's comparison tables and
overlay) and one row of docs/ns3-backend/comparison.csv: each engine's total goodput and mean RTT
(the mean of the flows' per-ACK RTT means), their standard errors over the seeds where a case has
several, the wall time of each engine, and whether the two are within the issue's targets:
goodput 5%, mean RTT 10%.

    python scripts/ns3_comparison.py            # every case, 30 simulated seconds
    python scripts/ns3_comparison.py --quick    # 5-second versions
    python scripts/ns3_comparison.py --case cubic-8bdp
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from comparison_cases import choose, save_summary

from tcplab import run
from tcplab.backends.ns3 import preflight
from tcplab.compare_backends import comparison_table, link_table, markdown_link_table, markdown_table, overlay_figure

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"goodput": 0.05, "rtt": 0.10}
ALGORITHMS = ("newreno", "reno", "cubic", "bic", "highspeed", "hybla", "scalable", "vegas", "veno", "westwood", "bbr",
              "htcp", "illinois", "yeah", "ledbat", "lp")
LOSS_SEEDS = tuple(range(1, 11))
# ns-3 users raise RcvBufSize and SndBufSize (131072 B by default, which would cap every flow
# here at 131072 B / 40 ms = 26 Mbit/s): the cases do so in both engines.
RECEIVE_WINDOW = "16MB"


def ns3_constants(cc: str) -> dict:
    """The parameters ns-3's class hard-codes, at its values (tcplab's defaults differ in a few,
    e.g. whether growth stops when the flow is not cwnd-limited): both engines then run the same
    algorithm."""
    return {name: fixed for name, (fixed, _) in preflight.CONSTANTS.get(cc, {}).items() if fixed is not None}


def dumbbell(name: str, cc: str, buffer: str, seconds: int, rate: str = "50Mbps", count: int = 2,
             queue: object = "droptail", ecn: bool = False, loss: float | None = None) -> dict:
    """`count` flows of `cc` on a `rate`, 40 ms dumbbell (18 ms bottleneck, 1 ms access links),
    started within the first second (drawn from the seed, the same draw in both engines)."""
    bottleneck: dict = {"rate": rate, "delay": "18ms", "buffer": buffer, "queue": queue}
    if loss is not None:
        bottleneck["forward"] = {"loss": {"model": "bernoulli", "p": loss}}
    flow: dict = {"cc": cc, "count": count, "start_spread": "1s", "params": ns3_constants(cc)}
    return {
        "name": name,
        "simulation": {"duration": f"{seconds}s", "sample_interval": "100ms", "seed": 1},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": bottleneck,
            "access": {"rate": "1Gbps", "delay": "1ms", "buffer": "1000p"},
        },
        "tcp": {"profile": "ns3", "mss": "1448B", "receive_window": RECEIVE_WINDOW, "send_buffer": RECEIVE_WINDOW,
                "ecn": ecn},
        "flows": [flow],
    }


def cases(quick: bool) -> dict[str, tuple[dict, tuple[int, ...]]]:
    length = 5 if quick else 30
    found: dict[str, tuple[dict, tuple[int, ...]]] = {}
    for cc in ALGORITHMS:
        for bdps in (1, 8):
            name = f"{cc}-{bdps}bdp"
            found[name] = (dumbbell(name, cc, f"{bdps}BDP", length), (1,))
    found["cubic-10flows-100mbps"] = (dumbbell("cubic-10flows-100mbps", "cubic", "1BDP", length, rate="100Mbps",
                                               count=10), (1,))
    found["newreno-10flows-100mbps"] = (dumbbell("newreno-10flows-100mbps", "newreno", "1BDP", length,
                                                 rate="100Mbps", count=10), (1,))
    for cc in ("newreno", "cubic"):
        name = f"{cc}-loss0.5pct"
        found[name] = (dumbbell(name, cc, "1BDP", length, rate="10Mbps", loss=0.005), LOSS_SEEDS)
    # ns-3's RED counts in its limit's unit: the buffer in packets (1 BDP of 1500-byte packets).
    found["newreno-red-ecn"] = (dumbbell("newreno-red-ecn", "newreno", "166p", length,
                                         queue={"kind": "red", "ecn": True}, ecn=True), (1,))
    found["cubic-fq-codel"] = (dumbbell("cubic-fq-codel", "cubic", "1BDP", length, queue="fq_codel"), (1,))
    # PIE holds about 15 ms of a deep buffer (ns-3's PieQueueDisc follows RFC 8033, tcplab's Linux).
    found["cubic-pie"] = (dumbbell("cubic-pie", "cubic", "8BDP", length, queue="pie"), (1,))
    # DCTCP on a step queue marking above K = 30 packets, above the DCTCP paper's K > C x RTT / 7
    # (166 / 7 = 24 packets here); the buffer in packets because ns-3's RED counts in its limit's
    # unit. ns-3's TcpDctcp settings come from ns3_constants (docs/algorithms/dctcp.md).
    found["dctcp-step"] = (dumbbell("dctcp-step", "dctcp", "166p", length,
                                    queue={"kind": "step", "threshold": "30p"}, ecn=True), (1,))
    return found


def within(simulator: float, other: float, target: float) -> bool:
    return simulator != 0 and abs(other / simulator - 1) <= target


def measure(results: dict) -> dict:
    row = {}
    for backend, result in results.items():
        tcp = result.flows[result.flows["protocol"] == "tcp"]
        row[f"goodput_mbps_{backend}"] = float(tcp["goodput_bps"].sum() / 1e6)
        row[f"rtt_mean_ms_{backend}"] = float(tcp["rtt_mean_ms"].mean())
        row[f"retransmitted_{backend}"] = float(tcp["retransmitted_segments"].sum())
        row[f"timeouts_{backend}"] = float(tcp["timeouts"].sum())
    return row


def summarise(name: str, per_seed: list[dict]) -> dict:
    frame = pd.DataFrame(per_seed)
    row = {"case": name, "seeds": len(frame)}
    row.update(frame.mean().to_dict())
    if len(frame) > 1:
        for column in ("goodput_mbps_simulator", "goodput_mbps_ns3", "rtt_mean_ms_simulator", "rtt_mean_ms_ns3"):
            row[f"{column}_se"] = float(frame[column].std(ddof=1) / math.sqrt(len(frame)))
    row["goodput_ok"] = within(row["goodput_mbps_simulator"], row["goodput_mbps_ns3"], TARGETS["goodput"])
    row["rtt_ok"] = within(row["rtt_mean_ms_simulator"], row["rtt_mean_ms_ns3"], TARGETS["rtt"])
    return row


def main() -> int:
    choice = choose(__doc__, "5-second versions of every case", ROOT / "docs" / "ns3-backend", cases)
    if choice is None:
        return 2
    args, everything, chosen = choice
    rows = []
    for name in chosen:
        scenario, seeds = everything[name]
        per_seed = []
        for seed in seeds:
            seeded = {**scenario, "simulation": {**scenario["simulation"], "seed": seed}}
            started = time.monotonic()
            results = {"simulator": run(seeded)}
            simulator_wall = time.monotonic() - started
            started = time.monotonic()
            results["ns3"] = run(seeded, backend="ns3")
            row = measure(results)
            row["wall_s_simulator"] = simulator_wall
            row["wall_s_ns3"] = time.monotonic() - started
            per_seed.append(row)
            if seed == seeds[0]:
                _write_case(args.out / name, results)
        row = summarise(name, per_seed)
        rows.append(row)
        print(f"{name:26} goodput {row['goodput_mbps_simulator']:8.3f} / {row['goodput_mbps_ns3']:8.3f} Mb/s "
              f"({'ok' if row['goodput_ok'] else 'OUT'}), RTT {row['rtt_mean_ms_simulator']:7.2f} / "
              f"{row['rtt_mean_ms_ns3']:7.2f} ms ({'ok' if row['rtt_ok'] else 'OUT'}); wall "
              f"{row['wall_s_simulator']:.2f} / {row['wall_s_ns3']:.2f} s per seed", flush=True)
    summary, frame = save_summary(pd.DataFrame(rows), args, chosen)
    summary.with_suffix(".md").write_text(markdown_summary(frame), encoding="utf-8")
    print(f"written: {summary} and {summary.with_suffix('.md')}")
    return 0


def markdown_summary(frame: pd.DataFrame) -> str:
    """The table docs/ns3-backend.md shows: each engine's goodput and mean RTT (with standard
    errors over seeds where a case has several), the verdicts, and the wall time per seed."""
    def value(row, column: str, digits: int) -> str:
        se = row.get(f"{column}_se")
        text = f"{row[column]:.{digits}f}"
        return text + (f" ± {se:.{digits}f}" if se == se and se is not None else "")

    lines = ["| case | seeds | goodput Mb/s simulator | ns-3 | diff | mean RTT ms simulator | ns-3 | diff | "
             "wall s simulator | ns-3 | ns-3 / simulator |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in frame.to_dict(orient="records"):
        goodput = row["goodput_mbps_ns3"] / row["goodput_mbps_simulator"] - 1
        rtt = row["rtt_mean_ms_ns3"] / row["rtt_mean_ms_simulator"] - 1
        lines.append(
            f"| {row['case']} | {row['seeds']} | {value(row, 'goodput_mbps_simulator', 2)} | "
            f"{value(row, 'goodput_mbps_ns3', 2)} | {goodput:+.1%}{'' if row['goodput_ok'] else ' **out**'} | "
            f"{value(row, 'rtt_mean_ms_simulator', 1)} | {value(row, 'rtt_mean_ms_ns3', 1)} | "
            f"{rtt:+.1%}{'' if row['rtt_ok'] else ' **out**'} | {row['wall_s_simulator']:.2f} | "
            f"{row['wall_s_ns3']:.1f} | {row['wall_s_ns3'] / row['wall_s_simulator']:.0f}x |")
    return "\n".join(lines) + "\n"


def _write_case(case: Path, results: dict) -> None:
    case.mkdir(parents=True, exist_ok=True)
    table = comparison_table(results)
    table.to_csv(case / "comparison.csv", index=False)
    links = link_table(results)
    links.to_csv(case / "links.csv", index=False)
    (case / "comparison.md").write_text(markdown_table(table) + "\n\n" + markdown_link_table(links, "ns3") + "\n",
                                        encoding="utf-8")
    figure = overlay_figure(results)
    figure.savefig(case / "overlay.png", dpi=80)
    plt.close(figure)


if __name__ == "__main__":
    sys.exit(main())
