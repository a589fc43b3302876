"""TCP-do on both engines: the paper's two scenarios (scenarios/papers/tcp-do/) run by the
simulator and by ns-3's tcplab::TcpDo (engine/tcp-do.cc), one row per scenario and seed, as
docs/ns3-backend.md ("TCP-do in ns-3") reports them.

Columns: total goodput over the run; the mean of the interval goodputs after the start-up (from
1.5 s: the steady state, where ns-3's recovery of the start-up burst no longer counts); the mean
of the flows' per-ACK mean RTTs; TCP-do's reductions; timeouts.

    python scripts/ns3_tcp_do.py [--seeds 1,2,3] [--duration 10s] [--scenarios controlled,dynamic]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tcplab import run

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios" / "papers" / "tcp-do"
# The start-up ends here (s): slow start and the first cuts are over on both engines.
STEADY_FROM_S = 1.5


def measure(result) -> dict[str, float]:
    flows, series, events = result.flows, result.timeseries, result.events
    steady = series[series["time_s"] > STEADY_FROM_S].groupby("time_s")["throughput_bps"].sum().mean()
    return {
        "goodput": flows["goodput_bps"].sum() / 1e6,
        "steady": steady / 1e6,
        "rtt": flows["rtt_mean_ms"].mean(),
        "reductions": int((events["event"] == "tcpdo_reduction").sum()),
        "timeouts": int(flows["timeouts"].sum()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1,2,3,4,5")
    parser.add_argument("--duration", default="10s")
    parser.add_argument("--scenarios", default="controlled,dynamic")
    args = parser.parse_args()
    print("| scenario | seed | goodput sim / ns-3 (Mb/s) | from 1.5 s | mean RTT (ms) | reductions | timeouts |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in args.scenarios.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            sim, ns3 = (measure(run(SCENARIOS / f"{name}.toml", backend=backend, duration=args.duration, seed=seed))
                        for backend in ("simulator", "ns3"))
            print(f"| {name} | {seed} | {sim['goodput']:.2f} / {ns3['goodput']:.2f} "
                  f"({(ns3['goodput'] / sim['goodput'] - 1) * 100:+.1f}%) "
                  f"| {sim['steady']:.2f} / {ns3['steady']:.2f} ({(ns3['steady'] / sim['steady'] - 1) * 100:+.1f}%) "
                  f"| {sim['rtt']:.3f} / {ns3['rtt']:.3f} ({(ns3['rtt'] / sim['rtt'] - 1) * 100:+.1f}%) "
                  f"| {sim['reductions']} / {ns3['reductions']} | {sim['timeouts']} / {ns3['timeouts']} |", flush=True)


if __name__ == "__main__":
    main()
