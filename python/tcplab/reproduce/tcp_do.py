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
    _delay_model_sensitivity(r, runs, duration)


# The controlled scenario's four link directions, whose random delay the sensitivity sweep varies.
DIRECTIONS = [f"topology.links.{link}.{direction}.jitter" for link in (0, 1) for direction in ("forward", "reverse")]


def _delay_model_sensitivity(r: Reproduction, runs: int, duration: str) -> None:
    """How much the controlled scenario's outcome depends on how the random delay varies: the
    drift's interval from 1 ms (the default: as fast as it can without reordering) to 1 s, and a
    constant 1 ms (a delay drawn once, at its mean)."""
    e = "delay model sensitivity"
    r.text(f"""## Sensitivity to the random-delay model (controlled scenario)

The paper does not say how its random delay varies. TCP-do reacts to RTT changes above 0.01 ms
between ACKs, so the speed of the variation matters: this sweep varies the drift's interval (the
time between independent delay values; the delay is always 0.5 to 1.5 ms, mean 1 ms) and adds a
constant 1 ms delay. Goodput of the sender, mean over {runs} run(s).""")
    intervals = ["1ms", "100ms"] if r.quick else ["1ms", "10ms", "100ms", "1s"]
    rows = []
    for cc in ALGORITHMS:
        sweep = r.sweep(f"delay-model-{cc}", "controlled.toml", {
            "algorithm": (["flows.0.cc"], [cc]),
            "drift_interval": ([f"{d}.interval" for d in DIRECTIONS], intervals)}, runs,
            {"simulation.duration": duration})
        flows = sweep.flows
        for interval in intervals:
            goodput = flows.loc[flows["drift_interval"] == interval, "goodput_bps"].mean() / 1e6
            rows.append((cc, f"drift every {interval}", goodput))
        constant = {f"{d}.{bound}": "1ms" for d in DIRECTIONS for bound in ("min", "max")}
        sweep = r.sweep(f"delay-model-{cc}-constant", "controlled.toml", {"algorithm": (["flows.0.cc"], [cc])}, runs,
                        {"simulation.duration": duration, **constant})
        rows.append((cc, "constant 1 ms", sweep.flows["goodput_bps"].mean() / 1e6))
    for cc, model, goodput in rows:
        r.number(e, f"{cc} goodput", model, "Mbit/s", None, goodput, "(sensitivity)")
    r.numbers_table(e)
    by_model = {model: {cc: g for cc, m, g in rows if m == model} for _, model, _ in rows}
    best = [model for model, values in by_model.items() if values["tcp_do"] >= max(values.values())]
    r.text("TCP-do has the highest goodput of the three under: " + (", ".join(best) if best else "none of these models") + ".")


def _scenario_report(r: Reproduction, scenario: str, series: pd.DataFrame, flows: pd.DataFrame) -> None:
    e = f"{scenario} scenario"
    r.text(f"## {scenario.capitalize()} scenario (Fig. {3 if scenario == 'controlled' else 4})")
    sender = flows[flows["name"].str.startswith("sender")]
    # Samples before the sender's first RTT measurement (its start is random in the dynamic
    # scenario) carry no sRTT.
    sender_series = series[(series["flow_id"] == 0) & (series["srtt_ms"] > 0)]
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
