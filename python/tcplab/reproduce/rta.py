"""TCP-RTA (papers/tcp-rta.txt): a session moving from a LAN onto a satellite path and back;
TCP-RTA against TCP Hybla and TCP NewReno, with the ns-3 profile (the paper's simulator) and the
Linux one. Every criterion below was written before the runs."""

from __future__ import annotations

import pandas as pd

from tcplab.reproduce.context import Reproduction, verdict

TITLE = "TCP-RTA (real-time topology adaptiveness: NewReno <-> Hybla)"
ALGORITHMS = ("rta", "hybla", "newreno")
PARAMS = {"rta": {"rtt0": "50ms"}, "hybla": {"rtt0": "50ms"}, "newreno": {}}
STEP_UP_S, STEP_DOWN_S = 10.0, 30.0
# The paper's transitory phase (Fig. 6) is not delimited; tcplab takes the 10 s after the step.
TRANSITORY = (STEP_UP_S, STEP_UP_S + 10.0)


def run(r: Reproduction) -> None:
    r.text("""
## Setup

The paper (Sec. 4) simulates in ns-3 a TCP session that moves from a LAN onto a satellite back-haul
and back ("a significant delay from ... 5 seconds"); it gives the thresholds (three RTTs above
800 ms: Hybla; three below 300 ms: NewReno) and reports cwnd and throughput (Figs. 1-6): "close to
33% increase on the average" and, in the transitory phase, "almost twice that of TCP Hybla as well
as TCP NewReno". Scenario: `scenarios/papers/rta/step.toml`.

Choices where the paper is silent (made before any comparison): 10 Mbit/s bottleneck, LAN RTT
20 ms, the forward delay raised by 850 ms (RTT 870 ms) from 10 s to 30 s, 40 s in all; a 100-packet
drop-tail queue (ns-3's default); Hybla's reference RTT 50 ms for RTA and Hybla (ns-3's TcpHybla);
the transitory phase is the 10 s after the step; throughput is goodput (bytes delivered in order).
Both the ns-3 profile (the paper's simulator: 1 s minimum RTO, no SACK) and the Linux profile run.
The scenario has no random element, so one run of each is the experiment. Hybla's rho follows the
smallest smoothed RTT (ns-3 and Linux both recompute it only on a new minimum), so a Hybla flow that
starts on the LAN keeps rho = 1 on the satellite path; TCP-RTA takes rho from the samples after its
switch (`rho_from = "samples"`, docs/algorithms/rta.md).
""")
    # The scenario has no random element (no loss model, no jitter, no random start): every run
    # would be identical, so one run is the paper's experiment.
    runs = r.runs_or(1, 1)
    frames, events = [], []
    for cc in ALGORITHMS:
        sweep = r.sweep(f"step-{cc}", "step.toml", {
            "algorithm": (["flows.0.cc"], [cc]), "profile": (["tcp.profile"], ["ns3", "linux"])}, runs,
            {"flows.0.params": PARAMS[cc]})
        frames.append(sweep.timeseries)
        events.append(sweep.events)
    series = pd.concat(frames)
    _figure(r, series)
    _switch_claim(r, pd.concat(events), runs)
    _throughput_claims(r, series)


def _window_goodput(series: pd.DataFrame, start: float, end: float) -> pd.Series:
    """Mean throughput (Mbit/s) per algorithm and profile in (start, end], averaged over runs."""
    rows = series[(series["time_s"] > start) & (series["time_s"] <= end)]
    return rows.groupby(["profile", "algorithm"])["throughput_bps"].mean() / 1e6


def _switch_claim(r: Reproduction, events: pd.DataFrame, runs: int) -> None:
    e = "topology step"
    rta = events[events["algorithm"] == "rta"] if len(events) else events
    checks, evidence = [], []
    for profile in ("ns3", "linux"):
        for run in range(runs):
            rows = rta[(rta["profile"] == profile) & (rta["run"] == run)]
            up = rows[(rows["event"] == "switch_to_hybla") & (rows["time_s"] >= STEP_UP_S)]["time_s"].min()
            down = rows[(rows["event"] == "switch_to_newreno") & (rows["time_s"] >= STEP_DOWN_S)]["time_s"].min()
            ok = up == up and down == down and up < STEP_UP_S + 5 and down < STEP_DOWN_S + 5
            checks.append(bool(ok))
            evidence.append(f"{profile} run {run}: to Hybla at {up:.2f} s, back at {down:.2f} s")
            if run == 0:
                r.number(e, "switch to Hybla after the step", profile, "s", None, up - STEP_UP_S, "Sec. 3 step 3")
                r.number(e, "switch back to NewReno after the return", profile, "s", None, down - STEP_DOWN_S, "Sec. 3 step 5")
    r.claim(e, "TCP-RTA switches to Hybla when the path becomes a satellite one and back to NewReno when it "
            "returns (criterion: within 5 s of each step).", verdict(checks), "; ".join(evidence) + ".")


def _throughput_claims(r: Reproduction, series: pd.DataFrame) -> None:
    e = "throughput"
    whole = _window_goodput(series, 0, 40)
    transitory = _window_goodput(series, *TRANSITORY)
    gains_whole, gains_transitory = [], []
    for profile in ("ns3", "linux"):
        for other in ("hybla", "newreno"):
            g = whole[profile, "rta"] / whole[profile, other] - 1
            t = transitory[profile, "rta"] / transitory[profile, other] - 1
            gains_whole.append(g)
            gains_transitory.append(t)
            r.number(e, f"RTA's throughput gain over {other}", f"{profile}, whole run", "", 0.33, g, "Sec. 5: 'close to 33%'")
            r.number(e, f"RTA's throughput gain over {other}", f"{profile}, transitory phase", "", 1.0, t,
                     "Sec. 5: 'almost twice'")
        for cc in ALGORITHMS:
            r.number(e, f"mean throughput {cc}", f"{profile}, whole run", "Mbit/s", None, whole[profile, cc], "Fig. 5")
    r.numbers_table("topology step")
    r.numbers_table(e)
    r.claim(e, "TCP-RTA's throughput is about 33% above Hybla's and NewReno's on average (criterion: 20% to 50% "
            "for 'reproduced', above 0 for 'partly').",
            "reproduced" if all(0.2 <= g <= 0.5 for g in gains_whole) else verdict([g > 0 for g in gains_whole]) if
            any(g > 0 for g in gains_whole) else "not reproduced",
            "gains (ns3 vs Hybla, vs NewReno; linux vs Hybla, vs NewReno): " + ", ".join(f"{g:+.0%}" for g in gains_whole) + ".")
    r.claim(e, "In the transitory phase TCP-RTA's throughput is almost twice Hybla's and NewReno's (criterion: +80% "
            "or more for 'reproduced', above 0 for 'partly').",
            "reproduced" if all(t >= 0.8 for t in gains_transitory) else "partly" if any(t > 0 for t in gains_transitory)
            else "not reproduced",
            "gains: " + ", ".join(f"{t:+.0%}" for t in gains_transitory) + ".")


def _figure(r: Reproduction, series: pd.DataFrame) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 2, figsize=(10, 7.5), sharex=True)
    for column, profile in enumerate(("ns3", "linux")):
        for cc in ALGORITHMS:
            rows = series[(series["algorithm"] == cc) & (series["profile"] == profile) & (series["run"] == 0)]
            axes[0][column].plot(rows["time_s"], rows["cwnd_bytes"] / 1448, label=cc, linewidth=0.9)
            axes[1][column].plot(rows["time_s"], rows["throughput_bps"] / 1e6, label=cc, linewidth=0.9)
            sent = (rows["throughput_bps"] * 0.1 / 8).cumsum() / 1e6
            axes[2][column].plot(rows["time_s"], sent, label=cc, linewidth=0.9)
        axes[0][column].set_title(f"{profile} profile")
        for ax, label in zip(axes[:, column], ["cwnd (segments)", "throughput (Mbit/s)", "delivered (MB)"]):
            ax.axvspan(STEP_UP_S, STEP_DOWN_S, color="orange", alpha=0.1)
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
        axes[2][column].set_xlabel("time (s)")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    r.figure("step", fig, "cwnd, throughput and delivered data of TCP-RTA, Hybla and NewReno, one run each; "
             "shaded: the satellite period (the paper's Figs. 1-6)")
