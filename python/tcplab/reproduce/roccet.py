"""TCP ROCCET (papers/tcp-roccet.txt): CUBIC's frozen cwnd (Fig. 2), the cellular comparisons
(Figs. 5-6), bandwidth share against CUBIC, BBRv3 and ROCCET (Figs. 7-8) and the capacity drop
(Fig. 9).

The paper's cellular results come from commercial 5G networks; tcplab's come from generated
5G-like traces (docs/traces.md), so those comparisons test whether the same ordering appears on a
model of such a link, not the published values. Every criterion below was written before the runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tcplab.reproduce.context import Reproduction
from tcplab.reproduce.estimates import Estimate
from tcplab.reproduce.verdicts import at_least, at_most, holds, within

TITLE = "TCP ROCCET (RTT-oriented CUBIC extension for 5G)"
ALGORITHMS = ("cubic", "roccet", "bbr3")
# The paper disables HyStart for its cellular measurements (Sec. VI).
PARAMS = {"cubic": {"hystart": False}, "roccet": {}, "bbr3": {}}
LINKS = {"50Mbps x 30ms": ("50Mbps", "14ms"), "10Mbps x 40ms": ("10Mbps", "19ms")}
BUFFERS = ["1BDP", "2BDP", "4BDP", "8BDP", "16BDP", "32BDP", "64BDP"]


# Verdicts of the report of 2026-11-25, by that report's claim id.
WAS = {1: "partly", 2: "reproduced", 3: "partly", 4: "partly", 5: "reproduced", 6: "reproduced", 7: "partly",
       8: "not reproduced", 9: "reproduced", 10: "reproduced", 11: "not reproduced", 12: "reproduced",
       13: "reproduced", 14: "not reproduced", 15: "reproduced"}


def was(number: int) -> tuple[str, str]:
    return (f"roccet-{number}", WAS[number])


def run(r: Reproduction) -> None:
    r.changes += [
        "HARQ failures are drawn per 1 ms slot (one transport block), not per packet: per packet, every slot of "
        "8-17 packets waited behind its worst packet, a delay floor of about 10-13 ms instead of about 4 ms. Rows "
        "with per-packet draws and without HARQ are a sensitivity table.",
        "Medians and quantiles carry a paired bootstrap interval over the runs; shares are per run with their "
        "interval; combined claims are split, and the paper's other statements (BBRv3 bloats less than CUBIC; "
        "mobile medians of ROCCET and BBRv3 nearly the same; the buffer trends of Figs. 7-8) are claims.",
        "Each share point has 10 runs (5 before, the paper's count).",
        "Vegas freezes in its Reno fallback when not cwnd-limited (not used here); delivery traces use every "
        "opportunity at the end of their period (30 s runs of 30 s traces never reach it).",
        "The Linux profile's TCP follows the kernel further (docs/linux-fidelity.md): HyStart counts rounds "
        "from the first ACK, the receiver reports every SACK block (in the order Linux keeps them), the "
        "retransmission timer is Linux's, and the receiver keeps quick ACKs through window growth, takes its "
        "shortest RTT and lets data held above a hole grow the window clamp (Linux 6.16).",
    ]
    r.text(f"""
## Setup

The paper evaluates ROCCET, the authors' Linux module, in commercial 5G networks (stationary SA,
mobile NSA; Figs. 5-6), in bandwidth-share tests on emulated links (Figs. 7-8) and on a link whose
capacity halves (Fig. 9). tcplab runs its ROCCET (`docs/algorithms/roccet.md`) against its CUBIC and
BBRv3 with the Linux profile. Scenarios: `scenarios/papers/roccet/`.

Choices where the paper is silent (made before any comparison):
- **Cellular links** are generated 5G-like traces (`docs/traces.md`): an LTE anchor of 40 Mbit/s
  and an NR carrier of 200 Mbit/s; stationary: NR always on; mobile: NR on 8 s / off 4 s on
  average. Downlink buffer 3000 packets (deep RLC buffer), HARQ delay (10% first-attempt failure,
  8 ms per retransmission, at most 3), 1e-5 residual loss; base RTT 26 ms. The paper's mobile
  filter ("at least 90 MHz of carrier bandwidth") is not applied: the traces have no carrier log.
- **sRTT per run** is the mean of the sender's smoothed RTT sampled every 100 ms; the box plots
  have one value per run, as the goodput ones.
- **Share links**: RTT = 2 x (0.5 ms access + bottleneck delay + 0.5 ms access); receive window
  64 MB (larger than every buffer, as the paper says).
- **Frozen cwnd** (Fig. 2): one CUBIC download of 60 s on a stationary trace, once with the
  64 MB receive window and once with 3 MB, the window a Linux receiver advertises from its default
  `tcp_rmem` maximum of 6 MiB (about half of the buffer is offered as window). The paper blames an
  application that does not fill the cwnd; in tcplab a window below the cwnd has the same effect:
  the flow is not cwnd-limited, so CUBIC does not grow (Linux's `tcp_is_cwnd_limited`).
- **Capacity drop**: 16 BDP buffer ("oversized ... multiple BDP"), the drop at 20 s of 35 s.
- Runs: {'quick form: 1-5 runs, fewer buffers and one link' if r.quick else 'the paper: 120 stationary runs and about 95 mobile ones per algorithm; 10 runs per share point (the paper made 5)'}.
""")
    frozen_cwnd(r)
    cellular(r)
    share(r)
    capacity_drop(r)


def _per_run(sweep, label: str | None) -> pd.DataFrame:
    """One row per run and flow (and value of `label`): goodput in Mbit/s and mean sRTT in ms."""
    keys = ([label] if label else []) + ["run", "flow_id"]
    flows = sweep.flows[[*keys, "goodput_bps"]]
    series = sweep.timeseries.groupby(keys, as_index=False)["srtt_ms"].mean()
    merged = flows.merge(series, on=keys)
    merged["goodput_mbps"] = merged["goodput_bps"] / 1e6
    return merged


FROZEN_WINDOWS = {"64MB": "64 MB window", "3MB": "3 MB window (Linux's default)"}


def frozen_cwnd(r: Reproduction) -> None:
    e = "frozen cwnd"
    r.text("## CUBIC's frozen cwnd on a cellular link (Fig. 2)")
    duration = "20s" if r.quick else "60s"
    # One run per window: the paper shows one exemplary transmission.
    sweep = r.sweep("frozen-cwnd", "cellular.toml", {"window_cap": (["tcp.receive_window"], list(FROZEN_WINDOWS))}, 1, {
        "simulation.duration": duration,
        "topology.bottleneck.forward.trace.cellular.length": duration,
        "topology.bottleneck.forward.trace.cellular.nr_off_mean": "0s",
        "flows.0.params": PARAMS["cubic"],
    })
    series, flows = sweep.timeseries, sweep.flows.set_index("window_cap")
    checks = {}
    for window, name in FROZEN_WINDOWS.items():
        rows = series[series["window_cap"] == window]
        in_slow_start = rows[rows["state"] == "slow_start"]
        slow_start_end = float(in_slow_start["time_s"].max()) if len(in_slow_start) else 0.0
        last_second = in_slow_start[in_slow_start["time_s"] > slow_start_end - 1.0]["cwnd_bytes"]
        avoidance = rows[rows["time_s"] > slow_start_end]["cwnd_bytes"]
        variation = float((avoidance.max() - avoidance.min()) / avoidance.mean()) if len(avoidance) else np.nan
        events = int(flows.loc[window, "fast_recoveries"] + flows.loc[window, "timeouts"])
        r.number(e, "time in slow start", name, "s", 4.0, slow_start_end, "Sec. III: 'the first 4 s'")
        r.number(e, "congestion events", name, "", 2.0, events, "Sec. III: losses at about 4 s and 7 s")
        r.number(e, "cwnd range / mean after slow start", name, "", None, variation, "Fig. 2 (flat cwnd)")
        r.number(e, "median sRTT", name, "ms", None, rows["srtt_ms"].median(), "Fig. 2")
        checks[window] = [slow_start_end >= 2.0 and last_second.nunique() == 1, events <= 3, variation <= 0.2]
    r.numbers_table(e)
    _frozen_figure(r, series)
    r.claim(e, "CUBIC (HyStart off) stays in slow start for seconds with a frozen, too large cwnd, and after "
            "one or two loss-based events its cwnd stays frozen in congestion avoidance (Fig. 2).",
            [holds("slow start of 2 s or more ending on an unchanged cwnd", checks["3MB"][0])],
            [holds("at most 3 congestion events", checks["3MB"][1]),
             holds("cwnd range within 20% of its mean after slow start", checks["3MB"][2])], was=was(1),
            note="with the 3 MB window: slow start of 2 s or more ending on an unchanged cwnd, "
            f"{checks['3MB'][0]}; at most 3 congestion events, {checks['3MB'][1]}; cwnd range within 20% of its "
            f"mean after slow start, {checks['3MB'][2]} (with the 64 MB window: {', '.join(map(str, checks['64MB']))}).")


def _frozen_figure(r: Reproduction, series: pd.DataFrame) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
    for window, name in FROZEN_WINDOWS.items():
        rows = series[series["window_cap"] == window]
        axes[0].plot(rows["time_s"], rows["cwnd_bytes"] / 1448, label=name, linewidth=0.9)
        axes[1].plot(rows["time_s"], rows["srtt_ms"], label=name, linewidth=0.9)
    axes[0].set_ylabel("cwnd (segments)")
    axes[1].set_ylabel("sRTT (ms)")
    axes[1].set_xlabel("time (s)")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    r.figure("frozen-cwnd", fig, "One CUBIC download (HyStart off) on a stationary 5G-like trace with two receive "
             "windows, as the paper's Fig. 2")


def cellular(r: Reproduction) -> None:
    r.text("## Cellular: stationary and mobile (Figs. 5-6)")
    cases = {"stationary": ("30s", "0s", r.runs_or(120, 4)), "mobile": ("20s", "4s", r.runs_or(95, 4))}
    results = {}
    for case, (duration, nr_off, runs) in cases.items():
        frames = []
        for cc in ALGORITHMS:
            sweep = r.sweep(f"cellular-{case}-{cc}", "cellular.toml", {"algorithm": (["flows.0.cc"], [cc])}, runs, {
                "simulation.duration": duration,
                "topology.bottleneck.forward.trace.cellular.length": duration,
                "topology.bottleneck.forward.trace.cellular.nr_off_mean": nr_off,
                "flows.0.params": PARAMS[cc],
            })
            frames.append(_per_run(sweep, "algorithm"))
        results[case] = pd.concat(frames)
    _cellular_figure(r, results)
    _stationary_claims(r, results["stationary"])
    _mobile_claims(r, results["mobile"])
    _harq_sensitivity(r)


# The downlink's HARQ model: one draw per 1 ms slot (the default), one per packet (the earlier
# report's), and none.
HARQ_MODELS = {"per slot": {"distribution": "harq"}, "per packet": {"distribution": "harq", "per": "packet"},
               "off": None}


def _harq_sensitivity(r: Reproduction) -> None:
    """The stationary comparison with the three HARQ models: how much of each algorithm's goodput
    and sRTT the model of HARQ decides."""
    e = "HARQ sensitivity"
    runs = r.runs_or(20, 2)
    r.text(f"""## Sensitivity to the HARQ model (stationary, {runs} runs each)

HARQ retransmits a transport block, one per 1 ms slot: all packets of a slot share one outcome
(the default). Drawn per packet, with packets released in order, a slot of 8-17 packets waits for
its worst packet. Without HARQ the link has no retransmission delay at all.""")
    lines = ["| HARQ | " + " | ".join(f"{cc} goodput (Mbit/s) | {cc} sRTT (ms)" for cc in ALGORITHMS) + " |",
             "|---|" + "---:|---:|" * len(ALGORITHMS)]
    for index, (model, jitter) in enumerate(HARQ_MODELS.items()):
        cells = []
        for cc in ALGORITHMS:
            overrides = {"simulation.duration": "30s", "topology.bottleneck.forward.trace.cellular.length": "30s",
                         "topology.bottleneck.forward.trace.cellular.nr_off_mean": "0s", "flows.0.cc": cc,
                         "flows.0.params": PARAMS[cc]}
            if jitter is None:
                overrides["topology.bottleneck.forward.jitter.p"] = 0.0
            else:
                overrides["topology.bottleneck.forward.jitter"] = jitter
            frame = _per_run(r.sweep(f"harq-{index + 1}-{cc}", "cellular.toml", {}, runs, overrides), None)
            goodput = Estimate.of(frame["goodput_mbps"])
            srtt = Estimate.of(frame["srtt_ms"])
            r.number(e, f"{cc} goodput", f"HARQ {model}", "Mbit/s", None, goodput, "(sensitivity)")
            r.number(e, f"{cc} mean sRTT", f"HARQ {model}", "ms", None, srtt, "(sensitivity)")
            cells += [goodput.format(), srtt.format()]
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    r.text("Means over the runs ± their 95% interval (HARQ off: the jitter's failure probability set to 0):\n\n"
           + "\n".join(lines))


def _cellular_figure(r: Reproduction, results: dict[str, pd.DataFrame]) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(9, 6))
    for row, (case, frame) in enumerate(results.items()):
        for column, (metric, unit) in enumerate([("goodput_mbps", "goodput (Mbit/s)"), ("srtt_ms", "sRTT (ms)")]):
            data = [frame.loc[frame["algorithm"] == cc, metric] for cc in ALGORITHMS]
            axes[row][column].boxplot(data, tick_labels=[a.upper() for a in ALGORITHMS])
            axes[row][column].set_ylabel(unit)
            axes[row][column].set_title(case)
    fig.tight_layout()
    r.figure("cellular-boxplots", fig, "Goodput and sRTT per run over generated 5G-like traces, as the paper's "
             "Figs. 5 (stationary) and 6 (mobile); one value per run")


def _runs(frame: pd.DataFrame, cc: str, metric: str) -> np.ndarray:
    """One algorithm's per-run values in run order: run r of every algorithm draws the same trace."""
    return frame[frame["algorithm"] == cc].sort_values("run")[metric].to_numpy()


def _quantile(frame: pd.DataFrame, cc: str, metric: str, q: float) -> Estimate:
    return Estimate.bootstrap(lambda a: np.quantile(a, q), _runs(frame, cc, metric))


def _quantile_difference(frame: pd.DataFrame, first: str, q1: float, second: str, q2: float, metric: str) -> Estimate:
    """first's q1 quantile minus second's q2 quantile, runs resampled in pairs."""
    return Estimate.bootstrap(lambda a, b: np.quantile(a, q1) - np.quantile(b, q2), _runs(frame, first, metric),
                              _runs(frame, second, metric))


def _quantile_ratio(frame: pd.DataFrame, first: str, second: str, q: float, metric: str) -> Estimate:
    return Estimate.bootstrap(lambda a, b: np.quantile(a, q) / np.quantile(b, q), _runs(frame, first, metric),
                              _runs(frame, second, metric))


def _cellular_numbers(r: Reproduction, e: str, case: str, frame: pd.DataFrame, figure: str) -> None:
    for cc in ALGORITHMS:
        for q, name in ((0.25, "25% quantile"), (0.5, "median"), (0.75, "75% quantile")):
            r.number(e, f"{name} sRTT {cc}", case, "ms", None, _quantile(frame, cc, "srtt_ms", q), figure)
        r.number(e, f"median goodput {cc}", case, "Mbit/s", None, _quantile(frame, cc, "goodput_mbps", 0.5), figure)


def _stationary_claims(r: Reproduction, frame: pd.DataFrame) -> None:
    e = "cellular stationary"
    gap = _quantile_difference(frame, "cubic", 0.5, "roccet", 0.5, "goodput_mbps")
    bbr_gap = _quantile_difference(frame, "bbr3", 0.5, "roccet", 0.5, "goodput_mbps")
    r.number(e, "median goodput CUBIC - ROCCET", "stationary", "Mbit/s", 10.0, gap, "Sec. VI: 'nearly 10 Mbps lower'")
    r.number(e, "median goodput BBRv3 - ROCCET", "stationary", "Mbit/s", 5.0, bbr_gap,
             "Sec. VI: 'a difference of 5 Mbps in median'")
    _cellular_numbers(r, e, "stationary", frame, "Fig. 5 (box plot)")
    r.numbers_table(e)
    roccet_max = float(_runs(frame, "roccet", "srtt_ms").max())
    r.claim(e, "All of ROCCET's sRTTs are below CUBIC's 25% quantile (stationary; criterion: ROCCET's largest per-run "
            "sRTT below the 95% interval of CUBIC's 25% quantile).",
            [at_least(f"CUBIC's 25% quantile sRTT, against ROCCET's largest {roccet_max:.1f} ms",
                      _quantile(frame, "cubic", "srtt_ms", 0.25), roccet_max, " ms")], was=was(2))
    r.claim(e, "ROCCET's median goodput is below CUBIC's (stationary; criterion: CUBIC - ROCCET median above 0; "
            "secondary: 'nearly 10 Mbit/s', 5 to 15).",
            [at_least("CUBIC - ROCCET median goodput", gap, 0.001, " Mbit/s")],
            [within("CUBIC - ROCCET median goodput", gap, 5.0, 15.0, " Mbit/s")], was=was(3))
    r.claim(e, "ROCCET and BBRv3 reach nearly the same goodput (stationary, medians about 5 Mbit/s apart; criterion: "
            "ROCCET's median over BBRv3's within 0.9 to 1.1).",
            [within("ROCCET / BBRv3 median goodput", _quantile_ratio(frame, "roccet", "bbr3", 0.5, "goodput_mbps"),
                    0.9, 1.1)], was=was(4))
    r.claim(e, "75% of ROCCET's sRTTs are below BBRv3's median (stationary; criterion: ROCCET's 75% quantile minus "
            "BBRv3's median below 0).",
            [at_most("ROCCET's 75% quantile - BBRv3's median sRTT",
                     _quantile_difference(frame, "roccet", 0.75, "bbr3", 0.5, "srtt_ms"), -0.001, " ms")])
    r.claim(e, "BBRv3 causes some bufferbloat, but less than CUBIC (stationary; criterion: BBRv3's median sRTT minus "
            "CUBIC's below 0).",
            [at_most("BBRv3 - CUBIC median sRTT", _quantile_difference(frame, "bbr3", 0.5, "cubic", 0.5, "srtt_ms"),
                     -0.001, " ms")])


def _mobile_claims(r: Reproduction, frame: pd.DataFrame) -> None:
    e = "cellular mobile"
    _cellular_numbers(r, e, "mobile", frame, "Fig. 6 (box plot)")
    r.numbers_table(e)
    r.claim(e, "Mobile: ROCCET's median sRTT is below CUBIC's (criterion: the difference of medians below 0; "
            "secondary: the same for the 75% quantiles).",
            [at_most("ROCCET - CUBIC median sRTT", _quantile_difference(frame, "roccet", 0.5, "cubic", 0.5, "srtt_ms"),
                     -0.001, " ms")],
            [at_most("ROCCET - CUBIC 75% quantile sRTT",
                     _quantile_difference(frame, "roccet", 0.75, "cubic", 0.75, "srtt_ms"), -0.001, " ms")], was=was(5))
    r.claim(e, "Mobile: CUBIC's goodput is higher than ROCCET's (criterion: the difference of medians above 0).",
            [at_least("CUBIC - ROCCET median goodput",
                      _quantile_difference(frame, "cubic", 0.5, "roccet", 0.5, "goodput_mbps"), 0.001, " Mbit/s")],
            was=was(6))
    r.claim(e, "Mobile: ROCCET and BBRv3 have nearly the same goodput (criterion: ROCCET's median over BBRv3's within "
            "0.9 to 1.1).",
            [within("ROCCET / BBRv3 median goodput", _quantile_ratio(frame, "roccet", "bbr3", 0.5, "goodput_mbps"),
                    0.9, 1.1)], was=was(7))
    roccet_max, bbr_max = (float(_runs(frame, cc, "srtt_ms").max()) for cc in ("roccet", "bbr3"))
    r.claim(e, "Mobile: ROCCET causes slightly less latency than BBRv3: its 75% quantile sRTT is lower (criterion: "
            "the difference below 0; secondary: its largest sRTT lower).",
            [at_most("ROCCET - BBRv3 75% quantile sRTT",
                     _quantile_difference(frame, "roccet", 0.75, "bbr3", 0.75, "srtt_ms"), -0.001, " ms")],
            [holds(f"largest sRTT ROCCET {roccet_max:.1f} ms below BBRv3's {bbr_max:.1f} ms", roccet_max < bbr_max)])
    r.claim(e, "Mobile: ROCCET's and BBRv3's median sRTT are nearly the same (criterion: ratio within 0.9 to 1.1; "
            "secondary: the 25% quantiles too).",
            [within("ROCCET / BBRv3 median sRTT", _quantile_ratio(frame, "roccet", "bbr3", 0.5, "srtt_ms"), 0.9, 1.1)],
            [within("ROCCET / BBRv3 25% quantile sRTT", _quantile_ratio(frame, "roccet", "bbr3", 0.25, "srtt_ms"),
                    0.9, 1.1)])


def _shares(sweep) -> pd.DataFrame:
    """Per point and run, the group's share of the total goodput."""
    flows = sweep.flows.copy()
    flows["group"] = flows["name"].str.startswith("group")
    labels = [label for label in sweep.labels]
    totals = flows.groupby(labels + ["run", "group"])["goodput_bps"].sum().unstack("group")
    totals["share"] = totals[True] / (totals[True] + totals[False])
    return totals["share"].reset_index()


def _mean_shares(per_run: pd.DataFrame) -> pd.DataFrame:
    """The mean share over runs per point (for the figures)."""
    keys = [c for c in per_run.columns if c not in ("run", "share")]
    return per_run.groupby(keys, as_index=False)["share"].mean()


def share(r: Reproduction) -> None:
    r.text("## Bandwidth share (Figs. 7-8)")
    links = dict(list(LINKS.items())[:1]) if r.quick else LINKS
    buffers = ["1BDP", "16BDP"] if r.quick else BUFFERS
    duration = "30s" if r.quick else "120s"
    # The paper made 5 runs per point; 10 narrow the interval each share is judged over.
    runs = r.runs_or(10, 1)
    one_to_one, many = [], []
    for link, (rate, delay) in links.items():
        fixed = {"topology.bottleneck.rate": rate, "topology.bottleneck.delay": delay, "simulation.duration": duration}
        sweep = r.sweep(f"share-1v1-{link.split()[0]}", "share.toml", {
            "first": (["flows.0.cc"], ["roccet", "cubic", "bbr3"]),
            "competitor": (["flows.1.cc"], ["cubic", "bbr3"]),
            "buffer_size": (["topology.bottleneck.buffer"], buffers)}, runs, fixed)
        one_to_one.append(_shares(sweep).assign(link=link))
        counts = [1, 4] if r.quick else [1, 2, 4, 8, 16, 32]
        competitors = ["cubic", "roccet"] if r.quick else ["cubic", "bbr3", "roccet"]
        sweep = r.sweep(f"share-many-{link.split()[0]}", "share.toml", {
            "group_size": (["flows.0.count"], counts), "competitor": (["flows.1.cc"], competitors),
            "buffer_size": (["topology.bottleneck.buffer"], ["4BDP"] if r.quick else buffers)}, runs, fixed)
        many.append(_shares(sweep).assign(link=link))
    _share_figures(r, _mean_shares(pd.concat(one_to_one)), _mean_shares(pd.concat(many)))
    _share_claims(r, pd.concat(one_to_one), pd.concat(many))
    _latecomer(r, runs, duration, buffers)


def _bdp(buffer: str) -> float:
    return float(buffer.removesuffix("BDP"))


def _share_figures(r: Reproduction, pairs: pd.DataFrame, many: pd.DataFrame) -> None:
    import matplotlib.pyplot as plt

    links = list(pairs["link"].unique())
    fig, axes = plt.subplots(1, len(links), figsize=(5 * len(links), 3.6), squeeze=False)
    for ax, link in zip(axes[0], links):
        for first, competitor in [("roccet", "cubic"), ("cubic", "cubic"), ("roccet", "bbr3"), ("bbr3", "bbr3")]:
            rows = pairs[(pairs["link"] == link) & (pairs["first"] == first) & (pairs["competitor"] == competitor)]
            rows = rows.assign(bdp=rows["buffer_size"].map(_bdp)).sort_values("bdp")
            ax.plot(rows["bdp"], rows["share"], marker="o", label=f"{first.upper()} vs {competitor.upper()}")
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xscale("log", base=2)
        ax.set(xlabel="buffer (BDP)", ylabel="share of the first flow", title=link, ylim=(0, 1))
        ax.legend(fontsize=7)
    fig.tight_layout()
    r.figure("share-one-vs-one", fig, "One flow against one (the paper's Fig. 8): the first flow's share of the "
             "total goodput, mean over runs")
    competitors = sorted(many["competitor"].unique())
    fig, axes = plt.subplots(len(links), len(competitors), figsize=(4.2 * len(competitors), 3.4 * len(links)),
                             squeeze=False, sharey=True)
    buffers = sorted(many["buffer_size"].unique(), key=_bdp)
    colours = plt.cm.viridis([i / max(len(buffers) - 1, 1) for i in range(len(buffers))])
    counts = sorted(many["group_size"].unique())
    for row, link in enumerate(links):
        for column, competitor in enumerate(competitors):
            ax = axes[row][column]
            for buffer, colour in zip(buffers, colours):
                rows = many[(many["link"] == link) & (many["competitor"] == competitor) & (many["buffer_size"] == buffer)]
                rows = rows.sort_values("group_size")
                ax.plot(rows["group_size"], rows["share"], marker="o", markersize=3, color=colour, label=buffer)
            ax.plot(counts, [n / (n + 1) for n in counts], color="grey", linestyle=":", label="equal share")
            ax.set_xscale("log", base=2)
            ax.set(title=f"vs one {competitor.upper()}, {link}", ylim=(0, 1))
            ax.set_xlabel("ROCCET flows")
        axes[row][0].set_ylabel("ROCCET flows' summed share")
    axes[0][-1].legend(fontsize=7, title="buffer")
    fig.tight_layout()
    r.figure("share-many", fig, "1 to 32 ROCCET flows against one flow (the paper's Fig. 7)")


def _share_estimates(per_run: pd.DataFrame, keys: list[str]) -> dict[tuple, Estimate]:
    """Per point (the values of `keys`), the share over runs."""
    return {point: Estimate.of(rows["share"]) for point, rows in per_run.groupby(keys)}


def _share_claims(r: Reproduction, pairs: pd.DataFrame, many: pd.DataFrame) -> None:
    e = "bandwidth share"
    pair_keys = ["link", "first", "competitor", "buffer_size"]
    pair_shares = _share_estimates(pairs, pair_keys)
    for (link, first, competitor, buffer), estimate in pair_shares.items():
        r.number(e, f"{first} share vs {competitor}", f"{link}, {buffer}", "", None, estimate, "Fig. 8")
    many_keys = ["link", "competitor", "group_size", "buffer_size"]
    many_shares = _share_estimates(many, many_keys)
    for (link, competitor, count, buffer), estimate in many_shares.items():
        r.number(e, f"{count} ROCCET flows' share vs one {competitor}", f"{link}, {buffer}", "", None, estimate,
                 "Fig. 7")
    r.text("The share of every point (Figs. 7 and 8), mean over the runs with its 95% interval, is in numbers.csv "
           "(experiment 'bandwidth share').")
    r.claim(e, "ROCCET shares nearly equally with other ROCCET flows (Fig. 7; criterion: the group's share within 0.1 "
            "of n/(n+1) at every point).",
            [within(f"{count} vs 1 ROCCET, {link}, {buffer}", estimate, count / (count + 1) - 0.1, count / (count + 1) + 0.1)
             for (link, competitor, count, buffer), estimate in many_shares.items() if competitor == "roccet"],
            note="With random starts the ROCCET flow that starts last keeps its first, queued RTT as its minimum and "
                 "takes most of the link on buffers above 1 BDP, whichever side it is on: ROCCET as the paper "
                 "specifies it (a minimum RTT that never expires); started together the flows share "
                 "(docs/algorithms/roccet.md, 'Two ROCCET flows against one', and the table below).", was=was(8))
    deep = {k: v for k, v in pair_shares.items() if _bdp(k[3]) > 1 and k[1] == "roccet"}
    r.claim(e, "Above 1 BDP, CUBIC and BBRv3 get more than an equal share against ROCCET (Fig. 8; criterion: "
            "ROCCET's share below 0.5 at every such point).",
            [at_most(f"ROCCET vs {k[2]}, {k[0]}, {k[3]}", v, 0.5) for k, v in deep.items()], was=was(9))
    same = {k: v for k, v in pair_shares.items() if k[1] == k[2]}
    r.claim(e, "CUBIC with CUBIC and BBRv3 with BBRv3 share nearly equally (Fig. 8; criterion: within 0.1 of 0.5).",
            [within(f"{k[1]} vs {k[2]}, {k[0]}, {k[3]}", v, 0.4, 0.6) for k, v in same.items()], was=was(10))
    against_bbr = {k: v for k, v in pair_shares.items() if k[:3] == ("50Mbps x 30ms", "roccet", "bbr3")}
    r.claim(e, "On 50 Mbit/s x 30 ms, ROCCET's share against BBRv3 is always below 30% (Fig. 8).",
            [at_most(f"ROCCET vs BBRv3, {k[3]}", v, 0.3) for k, v in against_bbr.items()], was=was(11))
    _trend_claims(r, pairs, many)


def _trend_claims(r: Reproduction, pairs: pd.DataFrame, many: pd.DataFrame) -> None:
    """The paper's buffer trends (Secs. VIII-A, VIII-B), each as a paired difference between the
    smallest buffer above 1 BDP and the largest."""
    e = "bandwidth share"
    link = "50Mbps x 30ms"

    def share_runs(frame: pd.DataFrame, **where) -> pd.Series:
        rows = frame
        for key, value in where.items():
            rows = rows[rows[key] == value]
        return rows.sort_values("run").set_index("run")["share"]

    buffers = sorted(set(pairs["buffer_size"]), key=_bdp)
    above = [b for b in buffers if _bdp(b) > 1]
    if len(above) < 2:
        r.claim(e, "ROCCET's share against CUBIC and BBRv3 falls as the buffer grows (Secs. VIII-A, VIII-B).", [],
                not_testable="the quick form runs one buffer above 1 BDP")
        return
    small, large = above[0], above[-1]
    r.claim(e, "ROCCET's share against CUBIC and BBRv3 falls as the buffer grows, on 50 Mbit/s x 30 ms (Secs. VIII-A, "
            f"VIII-B; criterion: the share at {large} minus at {small}, paired by run, below 0 for each competitor).",
            [at_most(f"ROCCET vs {c}: share at {large} - at {small}", Estimate.paired_difference(
                share_runs(pairs, link=link, first="roccet", competitor=c, buffer_size=large),
                share_runs(pairs, link=link, first="roccet", competitor=c, buffer_size=small)), -0.001)
             for c in ("cubic", "bbr3")])
    counts = sorted(set(many["group_size"]))
    group = counts[-1]
    if set(many["competitor"]) >= {"cubic", "bbr3"}:
        r.claim(e, "Against ROCCET flows, CUBIC gets more bandwidth than BBRv3 (Fig. 7, 50 Mbit/s x 30 ms; criterion: "
                f"{group} ROCCET flows' share against one CUBIC minus against one BBRv3, paired by run, below 0 at "
                "every buffer above 1 BDP).",
                [at_most(f"{group} ROCCET flows, {b}: share vs CUBIC - vs BBRv3", Estimate.paired_difference(
                    share_runs(many, link=link, competitor="cubic", group_size=group, buffer_size=b),
                    share_runs(many, link=link, competitor="bbr3", group_size=group, buffer_size=b)), -0.001)
                 for b in sorted(set(many["buffer_size"]), key=_bdp) if _bdp(b) > 1])


def _latecomer(r: Reproduction, runs: int, duration: str, buffers: list[str]) -> None:
    """Two ROCCET flows against one, every flow started at 0 s: the control that shows the
    starvation comes from the random start (docs/algorithms/roccet.md)."""
    e = "bandwidth share"
    rate, delay = LINKS["50Mbps x 30ms"]
    points = [b for b in buffers if _bdp(b) >= 4][:2] or buffers[-1:]
    sweep = r.sweep("share-2v1-started-together", "share.toml", {"buffer_size": (["topology.bottleneck.buffer"], points)},
                    runs, {"topology.bottleneck.rate": rate, "topology.bottleneck.delay": delay,
                           "simulation.duration": duration, "flows.0.count": 2, "flows.0.cc": "roccet",
                           "flows.1.cc": "roccet", "flows.0.start_spread": "0s", "flows.1.start_spread": "0s"})
    shares = _shares(sweep)
    lines = ["| buffer | 2 ROCCET flows' share against one ROCCET, all started at 0 s (equal: 0.67) |", "|---|---:|"]
    for buffer in points:
        estimate = Estimate.of(shares[shares["buffer_size"] == buffer]["share"])
        r.number(e, "2 ROCCET flows' share vs one ROCCET, all started at 0 s", f"50Mbps x 30ms, {buffer}", "", 2 / 3,
                 estimate, "control (docs/algorithms/roccet.md)")
        lines.append(f"| {buffer} | {estimate.format()} |")
    r.text("Control for the first claim: the same 50 Mbit/s x 30 ms link, every flow started at 0 s.\n\n" + "\n".join(lines))


def capacity_drop(r: Reproduction) -> None:
    e = "capacity drop"
    kernel = {cc: _kernel_run(r, cc) for cc in ALGORITHMS if _runs_in_kernel(cc)}
    r.text("## Capacity drop from 50 to 25 Mbit/s at 20 s (Fig. 9)\n\nThe Linux kernel column is the same scenario "
           "file on this machine's kernel (tcplab's Linux back-end, docs/linux-backend.md), one run each: CUBIC is "
           "the kernel's own, " + " and ".join(cc.upper() for cc in kernel if cc != "cubic")
           + " tcplab's BPF versions loaded into the kernel (python/tcplab/backends/linux/bpf/), with the simulator's "
           "parameters.")
    # The scenario has no random element: one run is the paper's "characteristic transmission".
    sweep = r.sweep("capacity-drop", "drop.toml", {"algorithm": (["flows.0.cc"], list(ALGORITHMS))}, r.runs_or(1, 1))
    series = sweep.timeseries
    events = sweep.events
    before = series[(series["time_s"] > 15) & (series["time_s"] <= 20)].groupby("algorithm")["srtt_ms"].median()
    after = series[series["time_s"] > 22].groupby("algorithm")["srtt_ms"].median()
    for cc in ALGORITHMS:
        engines = ({"linux": kernel[cc]["before"]}, {"linux": kernel[cc]["after"]}) if cc in kernel else ({}, {})
        r.number(e, f"median sRTT {cc} before the drop", "15-20 s", "ms", None, before[cc], "Fig. 9", engines=engines[0])
        r.number(e, f"median sRTT {cc} after the drop", "22-35 s", "ms", None, after[cc], "Fig. 9", engines=engines[1])
    roccet_events = events[(events["algorithm"] == "roccet") & (events["event"] == "roccet_event")] if len(events) else events
    first_after = roccet_events[roccet_events["time_s"] >= 20]["time_s"].groupby(roccet_events["run"]).min()
    delay = (first_after - 20).reindex(range(sweep.manifest["plan"]["runs"])).fillna(np.inf)
    kernel_delay = kernel["roccet"]["first_event_after_drop"] if "roccet" in kernel else None
    r.number(e, "ROCCET's first congestion event after the drop", "worst run", "s", None, delay.max(), "Fig. 9b",
             engines={"linux": kernel_delay} if kernel_delay is not None else None)
    r.numbers_table(e)
    _drop_figure(r, series)
    _capacity_drop_claims(r, e, series, before, after, delay, kernel)


def _runs_in_kernel(cc: str) -> bool:
    """Whether the Linux back-end has the algorithm: the kernel's own module or tcplab's BPF one."""
    from tcplab.backends.linux.bpf_build import bpf_algorithms
    from tcplab.backends.linux.congestion_controls import kernel_algorithms

    return cc in kernel_algorithms() or cc in bpf_algorithms()


def _capacity_drop_claims(r: Reproduction, e: str, series: pd.DataFrame, before: pd.Series, after: pd.Series,
                          delay: pd.Series, kernel: dict[str, dict[str, float]]) -> None:
    cubic_cwnd = series[(series["algorithm"] == "cubic") & (series["run"] == 0)]
    cwnd_before, cwnd_after = _cwnd_before_and_after(cubic_cwnd)
    k = kernel
    r.claim(e, "CUBIC does not react to the halved capacity: its cwnd stays and its sRTT rises.",
            [holds("CUBIC's cwnd after 25 s at least 80% of before", cwnd_after >= 0.8 * cwnd_before)],
            [holds("CUBIC's median sRTT after at least 1.5 times before", after["cubic"] > 1.5 * before["cubic"])],
            engines={"linux": [holds("the kernel's CUBIC: cwnd after 25 s at least 80% of before",
                                     k["cubic"]["cwnd_after"] >= 0.8 * k["cubic"]["cwnd_before"])]} if "cubic" in k else None,
            was=was(12), note=f"CUBIC's mean cwnd {cwnd_before / 1448:.0f} segments before, {cwnd_after / 1448:.0f} after 25 s "
            f"(criterion: not below 80%); median sRTT {before['cubic']:.0f} -> {after['cubic']:.0f} ms (criterion: x1.5).")
    kernel_note = (f" The kernel's ROCCET (BPF): first event {k['roccet']['first_event_after_drop']:.2f} s after the drop."
                   if "roccet" in k else "")
    r.claim(e, "ROCCET generates congestion events after the capacity drop.",
            [holds("a ROCCET event after the drop in every run", bool(np.isfinite(delay).all()))],
            engines={"linux": [holds("the kernel's ROCCET (BPF): an event after the drop",
                                     bool(np.isfinite(k["roccet"]["first_event_after_drop"])))]} if "roccet" in k else None,
            was=was(13), note=f"first ROCCET congestion event after 20 s, per run: {', '.join(f'{d:.2f} s' for d in delay)} "
            f"after the drop.{kernel_note}")
    r.claim(e, "After the drop BBRv3 keeps a higher sRTT than ROCCET.",
            [holds("BBRv3's median sRTT after 22 s above ROCCET's", after["bbr3"] > after["roccet"])],
            engines={"linux": [holds("the kernel's BBRv3 and ROCCET (BPF): BBRv3's median sRTT after 22 s above ROCCET's",
                                     k["bbr3"]["after"] > k["roccet"]["after"])]} if {"bbr3", "roccet"} <= set(k) else None,
            was=was(14), note=f"median sRTT after 22 s: BBRv3 {after['bbr3']:.0f} ms, ROCCET {after['roccet']:.0f} ms.")
    r.claim(e, "ROCCET's sRTT on the 16-BDP buffer is far below CUBIC's (Sec. IX with Sec. III).",
            [holds("ROCCET's median sRTT after the drop below half of CUBIC's", after["roccet"] < 0.5 * after["cubic"])],
            engines={"linux": [holds("the kernel: ROCCET's (BPF) median sRTT after the drop below half of CUBIC's",
                                     k["roccet"]["after"] < 0.5 * k["cubic"]["after"])]} if {"cubic", "roccet"} <= set(k) else None,
            was=was(15), note=f"median sRTT after the drop: ROCCET {after['roccet']:.0f} ms, CUBIC {after['cubic']:.0f} ms (criterion: below half).")


def _cwnd_before_and_after(rows: pd.DataFrame) -> tuple[float, float]:
    """Mean cwnd (bytes) in 18-20 s and after 25 s."""
    return (float(rows[(rows["time_s"] > 18) & (rows["time_s"] <= 20)]["cwnd_bytes"].mean()),
            float(rows[rows["time_s"] > 25]["cwnd_bytes"].mean()))


def _kernel_run(r: Reproduction, cc: str) -> dict[str, float]:
    """The same scenario file on Linux: the kernel's own CUBIC (HyStart on, as the kernel ships it;
    the paper's Fig. 9 does not say), or tcplab's BPF ROCCET or BBRv3 with the simulator's
    defaults; real kernel TCP between network namespaces over tcplab's link emulator, 35 s of
    real time. Its tables are kept in out/sweeps/linux-capacity-drop-<cc>."""
    from tcplab.api import run as run_scenario

    result = run_scenario(r.scenarios / "drop.toml", backend="linux", set={"flows.0.cc": cc, "flows.0.params": {}})
    result.save(r.out / "sweeps" / f"linux-capacity-drop-{cc}")
    series, events = result.timeseries, result.events
    cwnd_before, cwnd_after = _cwnd_before_and_after(series)
    congestion = events[(events["event"] == "roccet_event") & (events["time_s"] >= 20)]["time_s"] if len(events) else []
    return {"before": float(series[(series["time_s"] > 15) & (series["time_s"] <= 20)]["srtt_ms"].median()),
            "after": float(series[series["time_s"] > 22]["srtt_ms"].median()),
            "cwnd_before": cwnd_before, "cwnd_after": cwnd_after,
            "first_event_after_drop": float(min(congestion) - 20) if len(congestion) else float("inf")}


def _drop_figure(r: Reproduction, series: pd.DataFrame) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(8, 7), sharex=True)
    for cc in ALGORITHMS:
        rows = series[(series["algorithm"] == cc) & (series["run"] == 0)]
        axes[0].plot(rows["time_s"], rows["throughput_bps"] / 1e6, label=cc.upper(), linewidth=0.9)
        axes[1].plot(rows["time_s"], rows["cwnd_bytes"] / 1448, label=cc.upper(), linewidth=0.9)
        axes[2].plot(rows["time_s"], rows["srtt_ms"], label=cc.upper(), linewidth=0.9)
    for ax, label in zip(axes, ["throughput (Mbit/s)", "cwnd (segments)", "sRTT (ms)"]):
        ax.axvline(20, color="grey", linestyle=":")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    axes[2].set_xlabel("time (s)")
    fig.tight_layout()
    r.figure("capacity-drop", fig, "Throughput, cwnd and sRTT of one run each as the capacity halves at 20 s "
             "(the paper's Fig. 9, one panel per quantity instead of one per algorithm)")
