"""Evidence for "Two ROCCET flows against one" (docs/algorithms/roccet.md): on the reproduction's
share scenario, the ROCCET flow that starts last takes the link, whichever side it is on.

- Shares per run: the group's share of the goodput, 1, 2 or 4 ROCCET flows against one ROCCET
  flow, 1, 4 and 16 BDP, runs 0-4 (the reproduction's runs), with each flow's start time, minimum
  RTT (the sender's smallest RTT sample, which is ROCCET's RTT_min unless `rtt_min_reestimate`
  moves it) and goodput.
- Controls on 4 and 16 BDP: every flow started at 0 s; run 6, where the lone competitor is the
  one that starts last; and runs 0-4 with the paper's Sec. XI option `rtt_min_reestimate` (after
  10 s without a new minimum, RTT_min moves towards the current RTT).
- One run (2 against 1, 4 BDP, run 0) per flow: start, LAUNCH exit, ROCCET events, mean cwnd and
  sRTT after 5 s; the same without delayed ACKs (which lengthen the RTT samples of a flow with
  two or three segments in flight); and the figure docs/algorithms/img/roccet-latecomer.png.

    python scripts/roccet_latecomer.py [--duration 120s]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from matplotlib.figure import Figure

import tcplab

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "papers" / "roccet" / "share.toml"
FIGURE = ROOT / "docs" / "algorithms" / "img" / "roccet-latecomer.png"
MSS = 1448  # bytes: the Linux profile's segment payload on a 1500-byte MTU


def share_run(group: int, buffer: str, duration: str, run_index: int, extra: dict | None = None,
              interval: str = "1s"):
    keys = {"flows.0.count": group, "flows.0.cc": "roccet", "flows.1.cc": "roccet",
            "topology.bottleneck.rate": "50Mbps", "topology.bottleneck.delay": "14ms",
            "topology.bottleneck.buffer": buffer, "simulation.duration": duration,
            "simulation.sample_interval": interval, **(extra or {})}
    return tcplab.run(SCENARIO, set=keys, run_index=run_index)


def describe(result, group: int) -> str:
    flows = result.flows
    goodput = flows["goodput_bps"]
    share = goodput[:group].sum() / goodput.sum()
    per_flow = ", ".join(f"{row.name} start {row.start_s:.3f} s min RTT {row.rtt_min_ms:.1f} ms "
                         f"{row.goodput_bps / 1e6:.2f} Mbit/s" for row in flows.itertuples())
    return f"share {share:.3f}: {per_flow}"


def per_flow(result) -> None:
    events, series = result.events, result.timeseries
    settled = series[series["time_s"] > 5]
    for flow in result.flows.itertuples():
        own = events[events["flow_id"] == flow.flow_id]
        exits = own[own["event"] == "roccet_launch_exit"]["time_s"].tolist()
        reductions = own[own["event"] == "roccet_event"]["time_s"]
        rows = settled[settled["flow_id"] == flow.flow_id]
        print(f"  {flow.name:11} start {flow.start_s:.3f} s, LAUNCH exit {exits[0]:.3f} s, min RTT "
              f"{flow.rtt_min_ms:.1f} ms, {len(reductions)} ROCCET events, mean cwnd after 5 s "
              f"{rows['cwnd_bytes'].mean() / MSS:.1f} segments, mean sRTT {rows['srtt_ms'].mean():.1f} ms, "
              f"goodput {flow.goodput_bps / 1e6:.2f} Mbit/s")


def figure(result) -> None:
    series, flows = result.timeseries, result.flows
    fig = Figure(figsize=(9, 6), layout="constrained")
    ax_rtt, ax_cwnd = fig.subplots(2, 1, sharex=True)
    for flow, colour in zip(flows.itertuples(), ["C0", "C1", "C2"]):
        rows = series[series["flow_id"] == flow.flow_id]
        label = f"{flow.name} (start {flow.start_s:.2f} s, min RTT {flow.rtt_min_ms:.1f} ms)"
        ax_rtt.plot(rows["time_s"], rows["srtt_ms"], color=colour, linewidth=0.8, label=label)
        # srRTT passes its 100% bound where the RTT is twice the flow's own minimum.
        ax_rtt.axhline(2 * flow.rtt_min_ms, color=colour, linestyle="--", linewidth=0.9)
        ax_cwnd.plot(rows["time_s"], rows["cwnd_bytes"] / MSS, color=colour, linewidth=0.8, label=flow.name)
    ax_rtt.set_ylabel("sRTT (ms); dashed: 2 x own min RTT")
    ax_cwnd.set_ylabel("cwnd (segments)")
    ax_cwnd.set_yscale("log")
    ax_cwnd.set_xlabel("time (s)")
    ax_rtt.legend(loc="lower right", fontsize="small")
    ax_cwnd.legend(loc="upper right", fontsize="small")
    for ax in (ax_rtt, ax_cwnd):
        ax.grid(True, alpha=0.3)
    ax_rtt.set_title("Two ROCCET flows against one, 50 Mbit/s x 30 ms, 4-BDP buffer, run 0", fontsize="medium")
    fig.savefig(FIGURE, dpi=90)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", default="120s", help="simulated time per run (the paper: 120s)")
    duration = parser.parse_args().duration

    print("Group share per run (group = flows 0..n-1, competitor = flow n):")
    for buffer in ("1BDP", "4BDP", "16BDP"):
        for group in (1, 2, 4):
            for run_index in range(5):
                result = share_run(group, buffer, duration, run_index)
                print(f"  {group} vs 1, {buffer:5}, run {run_index}: {describe(result, group)}")

    print("Controls:")
    together = {"flows.0.start_spread": "0s", "flows.1.start_spread": "0s"}
    for buffer in ("4BDP", "16BDP"):
        for group in (1, 2):
            result = share_run(group, buffer, duration, 0, together)
            print(f"  {group} vs 1, {buffer:5}, all start at 0 s: {describe(result, group)}")
        print(f"  2 vs 1, {buffer:5}, run 6 (competitor last): {describe(share_run(2, buffer, duration, 6), 2)}")
        reestimate = {f"flows.{i}.params": {"rtt_min_reestimate": True} for i in (0, 1)}
        for run_index in range(5):
            result = share_run(2, buffer, duration, run_index, reestimate)
            print(f"  2 vs 1, {buffer:5}, run {run_index}, rtt_min_reestimate: {describe(result, 2)}")

    print("2 vs 1, 4BDP, run 0, per flow:")
    result = share_run(2, "4BDP", duration, 0, interval="100ms")
    per_flow(result)
    figure(result)
    print("The same without delayed ACKs:")
    per_flow(share_run(2, "4BDP", duration, 0, {"tcp.delayed_ack": False}, interval="100ms"))
    print(FIGURE.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
