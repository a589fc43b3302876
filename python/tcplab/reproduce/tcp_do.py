"""TCP-do (papers/tcp-do.txt): the controlled delay and dynamic traffic scenarios (Figs. 3-4),
TCP-do against CUBIC and BBR. Every criterion below was written before the runs."""

from __future__ import annotations

import pandas as pd

from tcplab.reproduce.context import Reproduction, verdict

TITLE = "TCP-do (cwnd control from the frequency of RTT oscillations)"
ALGORITHMS = ("tcp_do", "cubic", "bbr")
PUBLISHED = {
    "controlled": {"tcp_do": 124.01, "cubic": 122.94, "bbr": 123.09},
    "dynamic": {"tcp_do": 60.17, "cubic": 17.21, "bbr": 59.45},
}


def run(r: Reproduction) -> None:
    r.text("""
## Setup

The paper compares TCP-do with ns-3's TCP CUBIC and TCP BBR (BBRv1) in two scenarios (Fig. 2): a
200 Mbit/s on/off sender over 1 Gbit/s links with random 0.5-1.5 ms delays (controlled), and the
sender plus 9 on/off nodes sharing a 1 Gbit/s link with 0.1% loss (dynamic). It reports average RTT
and throughput. Scenarios: `scenarios/papers/tcp-do/`.

Choices where the paper is silent (made before any comparison): 10 s per run; ns-3's 100-packet
queues and TCP defaults (ns-3 profile); the random delay as a drifting delay on every link
direction (mean 1 ms, never reordering; an independent delay per packet would reorder at 1 Gbit/s);
in the dynamic scenario every node runs TCP with the sender's algorithm (ns-3 sets the socket type
for all nodes) over 1 ms links; data written during an on period and not yet sent is kept (ns-3's
OnOff over TCP). TCP-do's calm increase is 7 segments per RTT (`calm_increase_per = "rtt"`, see
docs/algorithms/tcp_do.md).

**What "average throughput" is.** 124 Mbit/s is more than the controlled sender offers on average
(200 Mbit/s half of the time: 100 Mbit/s), so the paper's figure cannot be bytes over the whole
run. tcplab reports both the goodput over the run and the mean of the 100 ms throughput samples
taken only while the flow had data in flight or delivered some (the mean over non-zero samples),
one metric that can exceed the offered mean.
""")
    runs = r.runs_or(5, 1)
    duration = "5s" if r.quick else "10s"
    for scenario in ("controlled", "dynamic"):
        frames, flows = [], []
        for cc in ALGORITHMS:
            overrides = {"simulation.duration": duration}
            count = 1 if scenario == "controlled" else 10
            sweep = r.sweep(f"{scenario}-{cc}", f"{scenario}.toml",
                            {"algorithm": ([f"flows.{i}.cc" for i in range(count)], [cc])}, runs, overrides)
            frames.append(sweep.timeseries)
            flows.append(sweep.flows)
        _scenario_report(r, scenario, pd.concat(frames), pd.concat(flows))


def _scenario_report(r: Reproduction, scenario: str, series: pd.DataFrame, flows: pd.DataFrame) -> None:
    e = f"{scenario} scenario"
    r.text(f"## {scenario.capitalize()} scenario (Fig. {3 if scenario == 'controlled' else 4})")
    sender = flows[flows["name"].str.startswith("sender")]
    sender_series = series[series["flow_id"] == 0]
    goodput = sender.groupby("algorithm")["goodput_bps"].mean() / 1e6
    active = sender_series[sender_series["throughput_bps"] > 0]
    active_mean = active.groupby("algorithm")["throughput_bps"].mean() / 1e6
    rtt = sender.groupby("algorithm")["rtt_mean_ms"].mean()
    srtt_std = sender_series.groupby("algorithm")["srtt_ms"].std()
    for cc in ALGORITHMS:
        published = PUBLISHED[scenario][cc]
        r.number(e, f"{cc} goodput over the run", "sender", "Mbit/s", published, goodput[cc], "Sec. IV")
        r.number(e, f"{cc} mean of non-zero throughput samples", "sender", "Mbit/s", published, active_mean[cc], "Sec. IV")
        r.number(e, f"{cc} mean RTT", "sender", "ms", 4.029 if (scenario, cc) == ("controlled", "tcp_do") else None,
                 rtt[cc], "Fig. 3a / 4a")
        r.number(e, f"{cc} sRTT standard deviation", "sender", "ms", None, srtt_std[cc], "Fig. 3a / 4a")
    r.numbers_table(e)
    _figure(r, scenario, sender_series)
    if scenario == "controlled":
        r.claim(e, "TCP-do keeps the lowest average RTT.", verdict([rtt["tcp_do"] <= rtt[["cubic", "bbr"]].min()]),
                f"mean RTT TCP-do {rtt['tcp_do']:.3f}, CUBIC {rtt['cubic']:.3f}, BBR {rtt['bbr']:.3f} ms.")
        r.claim(e, "TCP-do's average throughput is the highest of the three (124.01 vs 123.09 and 122.94 Mbit/s).",
                verdict([goodput["tcp_do"] >= goodput[["cubic", "bbr"]].max()]),
                f"goodput TCP-do {goodput['tcp_do']:.2f}, CUBIC {goodput['cubic']:.2f}, BBR {goodput['bbr']:.2f} Mbit/s.")
    else:
        r.claim(e, "CUBIC's throughput is far below TCP-do's and BBR's (17.21 vs 60.17 and 59.45 Mbit/s; criterion: "
                "below half of both).", verdict([goodput["cubic"] < 0.5 * goodput[["tcp_do", "bbr"]].min()]),
                f"goodput TCP-do {goodput['tcp_do']:.2f}, CUBIC {goodput['cubic']:.2f}, BBR {goodput['bbr']:.2f} Mbit/s.")
        r.claim(e, "TCP-do's throughput is comparable to BBR's and slightly above it (criteria: within 10%; above).",
                verdict([abs(goodput["tcp_do"] / goodput["bbr"] - 1) <= 0.1, goodput["tcp_do"] >= goodput["bbr"]]),
                f"TCP-do {goodput['tcp_do']:.2f}, BBR {goodput['bbr']:.2f} Mbit/s.")
        r.claim(e, "TCP-do's RTT is more stable than BBR's, with fewer spikes (criterion: smaller sRTT standard "
                "deviation).", verdict([srtt_std["tcp_do"] < srtt_std["bbr"]]),
                f"sRTT standard deviation TCP-do {srtt_std['tcp_do']:.3f}, BBR {srtt_std['bbr']:.3f} ms.")


def _figure(r: Reproduction, scenario: str, series: pd.DataFrame) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True)
    for cc in ALGORITHMS:
        rows = series[(series["algorithm"] == cc) & (series["run"] == 0)]
        axes[0].plot(rows["time_s"], rows["srtt_ms"], label=cc, linewidth=0.9)
        axes[1].plot(rows["time_s"], rows["throughput_bps"] / 1e6, label=cc, linewidth=0.9)
    axes[0].set_ylabel("sRTT (ms)")
    axes[1].set_ylabel("throughput (Mbit/s)")
    axes[1].set_xlabel("time (s)")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    r.figure(f"{scenario}", fig, f"The sender's sRTT and throughput (100 ms samples), one run each, {scenario} "
             f"scenario (the paper's Fig. {3 if scenario == 'controlled' else 4})")
