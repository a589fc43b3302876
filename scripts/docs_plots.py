"""Makes the plots on the docs pages: every algorithm's cwnd on one standard scenario, and every
queue discipline's queueing delay on another. Run from the repository root after installing:

    python scripts/docs_plots.py

Writes docs/algorithms/img/<algorithm>.png and docs/queues/img/<queue>.png.
"""

from pathlib import Path

from matplotlib.figure import Figure

import tcplab

ROOT = Path(__file__).resolve().parent.parent

# One flow alone on 20 Mbit/s, 44 ms base RTT, a 1-BDP drop-tail buffer, with rare random loss so
# that loss-insensitive phases show too.
ALGORITHM_SCENARIO = {
    "name": "algorithm-portrait",
    "simulation": {"duration": "30s", "sample_interval": "50ms"},
    "topology": {
        "kind": "dumbbell",
        "bottleneck": {"rate": "20Mbps", "delay": "20ms", "buffer": "1BDP",
                       "forward": {"loss": {"model": "bernoulli", "p": 0.0001}}},
        "access": {"rate": "1Gbps", "delay": "1ms", "buffer": "1000p"},
    },
    "flows": [{"cc": "ALGORITHM"}],
}

# Two CUBIC flows on 20 Mbit/s, 40 ms base RTT, a deep (20-BDP) buffer.
QUEUE_SCENARIO = {
    "name": "queue-portrait",
    "simulation": {"duration": "30s", "sample_interval": "50ms"},
    "topology": {
        "kind": "dumbbell",
        "bottleneck": {"rate": "20Mbps", "delay": "18ms", "buffer": "20BDP", "queue": "QUEUE"},
        "access": {"rate": "1Gbps", "delay": "1ms", "buffer": "1000p"},
    },
    "flows": [{"cc": "cubic", "count": 2, "start_spread": "2s"}],
}


def algorithm_plot(name: str, out: Path) -> None:
    scenario = {**ALGORITHM_SCENARIO, "flows": [{"cc": name}]}
    result = tcplab.run(scenario)
    series = result.timeseries
    queue = result.queues[(result.queues["link"] == "bottleneck") & (result.queues["direction"] == "forward")]
    figure = Figure(figsize=(9, 4.5), layout="constrained")
    ax = figure.subplots()
    ax.plot(series["time_s"], series["cwnd_bytes"] / 1448, label="cwnd (segments)", linewidth=1)
    ax.plot(queue["time_s"], queue["queue_packets"], label="bottleneck queue (packets)", linewidth=0.8, alpha=0.7)
    bdp = 20e6 * 0.044 / 8 / 1500
    ax.axhline(bdp, color="grey", linestyle=":", linewidth=0.8, label=f"BDP ({bdp:.0f} packets)")
    flow = result.flows.iloc[0]
    ax.set_title(f"{name}: 20 Mbit/s, 44 ms, 1-BDP buffer, 0.01% loss: "
                 f"goodput {flow.goodput_bps / 1e6:.1f} Mbit/s, RTT p95 {flow.rtt_p95_ms:.0f} ms", fontsize="medium")
    ax.set_xlabel("time (s)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize="small")
    figure.savefig(out, dpi=90)


def queue_plot(kind: str, out: Path) -> None:
    scenario = {**QUEUE_SCENARIO}
    topology = {**scenario["topology"], "bottleneck": {**scenario["topology"]["bottleneck"], "queue": kind}}
    result = tcplab.run({**scenario, "topology": topology})
    link = result.links[(result.links["link"] == "bottleneck") & (result.links["direction"] == "forward")].iloc[0]
    series = result.timeseries
    figure = Figure(figsize=(9, 4.5), layout="constrained")
    ax_rtt, ax_rate = figure.subplots(2, 1, sharex=True)
    for name, rows in series.groupby("name"):
        ax_rtt.plot(rows["time_s"], rows["srtt_ms"], linewidth=1, label=name)
        ax_rate.plot(rows["time_s"], rows["throughput_bps"] / 1e6, linewidth=0.8, label=name)
    ax_rtt.set_ylabel("smoothed RTT (ms)")
    ax_rate.set_ylabel("goodput (Mbit/s)")
    ax_rate.set_xlabel("time (s)")
    for ax in (ax_rtt, ax_rate):
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper right", fontsize="small")
    ax_rtt.set_title(f"{kind}: two CUBIC flows, 20 Mbit/s, 40 ms, 20-BDP buffer: queue delay p50 "
                     f"{link.queue_delay_p50_ms:.1f} ms, p95 {link.queue_delay_p95_ms:.1f} ms, utilization {link.utilization:.0%}",
                     fontsize="medium")
    figure.savefig(out, dpi=90)


def main() -> None:
    algorithms_dir = ROOT / "docs" / "algorithms" / "img"
    queues_dir = ROOT / "docs" / "queues" / "img"
    algorithms_dir.mkdir(parents=True, exist_ok=True)
    queues_dir.mkdir(parents=True, exist_ok=True)
    for algorithm in tcplab.algorithms():
        algorithm_plot(algorithm["name"], algorithms_dir / f"{algorithm['name']}.png")
        print(f"docs/algorithms/img/{algorithm['name']}.png")
    for kind in ["droptail", "red", "codel", "fq_codel", "pie"]:
        queue_plot(kind, queues_dir / f"{kind}.png")
        print(f"docs/queues/img/{kind}.png")


if __name__ == "__main__":
    main()
