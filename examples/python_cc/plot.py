"""Runs the delay-based example against built-in CUBIC and Vegas on one path and plots each flow's
window and the bottleneck queue: examples/python_cc/delay_based.png.

    PYTHONPATH=examples/python_cc python examples/python_cc/plot.py
"""

from pathlib import Path

from matplotlib.figure import Figure

import tcplab

HERE = Path(__file__).resolve().parent
SCENARIO = """
name = "delay-based example"
[simulation]
duration = "20s"
sample_interval = "50ms"
[topology]
kind = "dumbbell"
bottleneck = { rate = "20Mbps", delay = "20ms", buffer = "4BDP" }
[[flows]]
name = "flow"
cc = "cubic"
"""


def main() -> None:
    figure = Figure(figsize=(10, 6), layout="constrained")
    cwnd_ax, queue_ax = figure.subplots(2, 1, sharex=True)
    for algorithm in ["python:delay_based:DelayBased", "vegas", "cubic"]:
        result = tcplab.run(SCENARIO, set={"flows.0.cc": algorithm})
        series = result.timeseries
        cwnd_ax.plot(series["time_s"], series["cwnd_bytes"] / 1448, label=algorithm, linewidth=1)
        link = result.bottleneck()
        queues = result.queues[(result.queues["link"] == link["link"]) & (result.queues["direction"] == link["direction"])]
        queue_ax.plot(queues["time_s"], queues["queue_packets"], label=algorithm, linewidth=1)
        flow = result.flows.iloc[0]
        print(f"{algorithm:32} goodput {flow.goodput_bps / 1e6:6.2f} Mbit/s, RTT p50 {flow.rtt_p50_ms:6.1f} ms")
    cwnd_ax.set_ylabel("cwnd (segments)")
    queue_ax.set_ylabel("bottleneck queue (packets)")
    queue_ax.set_xlabel("time (s)")
    cwnd_ax.legend(fontsize="small")
    figure.suptitle("one flow on 20 Mbit/s, 40 ms RTT, 4-BDP buffer")
    figure.savefig(HERE / "delay_based.png", dpi=90)


if __name__ == "__main__":
    main()
