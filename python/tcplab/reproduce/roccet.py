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
from tcplab.reproduce.verdicts import holds

TITLE = "TCP ROCCET (RTT-oriented CUBIC extension for 5G)"
ALGORITHMS = ("cubic", "roccet", "bbr3")
# The paper disables HyStart for its cellular measurements (Sec. VI).
PARAMS = {"cubic": {"hystart": False}, "roccet": {}, "bbr3": {}}
LINKS = {"50Mbps x 30ms": ("50Mbps", "14ms"), "10Mbps x 40ms": ("10Mbps", "19ms")}
BUFFERS = ["1BDP", "2BDP", "4BDP", "8BDP", "16BDP", "32BDP", "64BDP"]


# Verdicts of the report of 2026-11-25; the claims keep its numbering.
PREVIOUS = {'roccet-1': 'partly', 'roccet-2': 'reproduced', 'roccet-3': 'partly', 'roccet-4': 'partly',
            'roccet-5': 'reproduced', 'roccet-6': 'reproduced', 'roccet-7': 'partly', 'roccet-8': 'not reproduced',
            'roccet-9': 'reproduced', 'roccet-10': 'reproduced', 'roccet-11': 'not reproduced',
            'roccet-12': 'reproduced', 'roccet-13': 'reproduced', 'roccet-14': 'not reproduced',
            'roccet-15': 'reproduced'}


def run(r: Reproduction) -> None:
    r.previous = dict(PREVIOUS)
    r.changes += ["Claims are judged by the rules of docs/reproductions/README.md: the first criterion of each "
                  "claim is its headline, the others secondary (their checks are on the means over the runs)."]
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
- Runs: {'quick form: 1-5 runs, fewer buffers and one link' if r.quick else 'the paper: 120 stationary runs and about 95 mobile ones per algorithm, 5 runs per share point'}.
""")
    frozen_cwnd(r)
    cellular(r)
    share(r)
    capacity_drop(r)


def _per_run(sweep, label: str) -> pd.DataFrame:
    """One row per run and flow: goodput in Mbit/s and mean sRTT in ms."""
    flows = sweep.flows[[label, "run", "flow_id", "goodput_bps"]]
    series = sweep.timeseries.groupby([label, "run", "flow_id"], as_index=False)["srtt_ms"].mean()
    merged = flows.merge(series, on=[label, "run", "flow_id"])
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
             holds("cwnd range within 20% of its mean after slow start", checks["3MB"][2])],
            "with the 3 MB window: slow start of 2 s or more ending on an unchanged cwnd, "
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


def _quantiles(frame: pd.DataFrame, cc: str, metric: str) -> pd.Series:
    return frame.loc[frame["algorithm"] == cc, metric].quantile([0.25, 0.5, 0.75, 1.0])


def _stationary_claims(r: Reproduction, frame: pd.DataFrame) -> None:
    e = "cellular stationary"
    good = {cc: _quantiles(frame, cc, "goodput_mbps") for cc in ALGORITHMS}
    srtt = {cc: _quantiles(frame, cc, "srtt_ms") for cc in ALGORITHMS}
    gap = good["cubic"][0.5] - good["roccet"][0.5]
    r.number(e, "median goodput CUBIC - ROCCET", "stationary", "Mbit/s", 10.0, gap, "Sec. VI: 'nearly 10 Mbps lower'")
    r.number(e, "median goodput BBRv3 - ROCCET", "stationary", "Mbit/s", 5.0, good["bbr3"][0.5] - good["roccet"][0.5],
             "Sec. VI: 'a difference of 5 Mbps in median'")
    for cc in ALGORITHMS:
        r.number(e, f"median sRTT {cc}", "stationary", "ms", None, srtt[cc][0.5], "Fig. 5 (box plot)")
        r.number(e, f"median goodput {cc}", "stationary", "Mbit/s", None, good[cc][0.5], "Fig. 5 (box plot)")
    r.numbers_table(e)
    r.claim(e, "All of ROCCET's sRTTs are below CUBIC's 25% quantile (stationary).",
            [holds("criterion 1", srtt["roccet"][1.0] < srtt["cubic"][0.25])], [],
            f"ROCCET's largest per-run sRTT {srtt['roccet'][1.0]:.1f} ms; CUBIC's 25% quantile {srtt['cubic'][0.25]:.1f} ms.")
    r.claim(e, "ROCCET's median goodput is below CUBIC's (by nearly 10 Mbit/s).",
            [holds("criterion 1", gap > 0)], [holds("criterion 2", 5.0 <= gap <= 15.0)],
            f"CUBIC - ROCCET = {gap:.1f} Mbit/s (criteria: positive; and 5 to 15 Mbit/s).")
    bbr_gap = good["bbr3"][0.5] - good["roccet"][0.5]
    r.claim(e, "ROCCET and BBRv3 reach nearly the same goodput (medians about 5 Mbit/s apart), and 75% of "
            "ROCCET's sRTTs are below BBRv3's median.",
            [holds("criterion 1", abs(bbr_gap) <= 0.1 * good["bbr3"][0.5])], [holds("criterion 2", srtt["roccet"][0.75] < srtt["bbr3"][0.5])],
            f"BBRv3 - ROCCET median goodput {bbr_gap:.1f} Mbit/s (criterion: within 10% of BBRv3's "
            f"{good['bbr3'][0.5]:.1f}); ROCCET's sRTT 75% quantile {srtt['roccet'][0.75]:.1f} ms vs BBRv3's median "
            f"{srtt['bbr3'][0.5]:.1f} ms.")


def _mobile_claims(r: Reproduction, frame: pd.DataFrame) -> None:
    e = "cellular mobile"
    good = {cc: _quantiles(frame, cc, "goodput_mbps") for cc in ALGORITHMS}
    srtt = {cc: _quantiles(frame, cc, "srtt_ms") for cc in ALGORITHMS}
    for cc in ALGORITHMS:
        r.number(e, f"median sRTT {cc}", "mobile", "ms", None, srtt[cc][0.5], "Fig. 6 (box plot)")
        r.number(e, f"median goodput {cc}", "mobile", "Mbit/s", None, good[cc][0.5], "Fig. 6 (box plot)")
    r.numbers_table(e)
    r.claim(e, "Mobile: ROCCET's median and 75% quantile sRTT are below CUBIC's.",
            [holds("criterion 1", srtt["roccet"][0.5] < srtt["cubic"][0.5])], [holds("criterion 2", srtt["roccet"][0.75] < srtt["cubic"][0.75])],
            f"ROCCET {srtt['roccet'][0.5]:.1f} / {srtt['roccet'][0.75]:.1f} ms, CUBIC {srtt['cubic'][0.5]:.1f} / "
            f"{srtt['cubic'][0.75]:.1f} ms (median / 75%).")
    r.claim(e, "Mobile: CUBIC's goodput is higher than ROCCET's.", [holds("criterion 1", good["cubic"][0.5] > good["roccet"][0.5])], [],
            f"medians CUBIC {good['cubic'][0.5]:.1f}, ROCCET {good['roccet'][0.5]:.1f} Mbit/s.")
    r.claim(e, "Mobile: ROCCET and BBRv3 have nearly the same goodput, ROCCET with less latency (75% quantile and "
            "maximum sRTT lower).",
            [holds("criterion 1", abs(good["bbr3"][0.5] - good["roccet"][0.5]) <= 0.1 * good["bbr3"][0.5])], [holds("criterion 2", srtt["roccet"][0.75] < srtt["bbr3"][0.75] and srtt["roccet"][1.0] < srtt["bbr3"][1.0])],
            f"median goodput BBRv3 {good['bbr3'][0.5]:.1f}, ROCCET {good['roccet'][0.5]:.1f} Mbit/s (criterion: within "
            f"10%); sRTT 75% / max BBRv3 {srtt['bbr3'][0.75]:.1f} / {srtt['bbr3'][1.0]:.1f}, ROCCET "
            f"{srtt['roccet'][0.75]:.1f} / {srtt['roccet'][1.0]:.1f} ms.")


def _shares(sweep) -> pd.DataFrame:
    """Per point and run, the group's share of the total goodput; then the mean over runs."""
    flows = sweep.flows.copy()
    flows["group"] = flows["name"].str.startswith("group")
    labels = [label for label in sweep.labels]
    totals = flows.groupby(labels + ["run", "group"])["goodput_bps"].sum().unstack("group")
    totals["share"] = totals[True] / (totals[True] + totals[False])
    return totals.groupby(labels)["share"].mean().reset_index()


def _spread(points: pd.DataFrame) -> str:
    """The smallest and largest share over a set of points, with where they occur."""
    if points.empty:
        return "no points"
    points = points.reset_index(drop=True)

    def where(row: pd.Series) -> str:
        return f"{row['share']:.2f} ({row['first']} vs {row['competitor']}, {row['link']}, {row['buffer_size']})"

    low, high = points.loc[points["share"].idxmin()], points.loc[points["share"].idxmax()]
    return f"{len(points)} points, from {where(low)} to {where(high)}"


def share(r: Reproduction) -> None:
    r.text("## Bandwidth share (Figs. 7-8)")
    links = dict(list(LINKS.items())[:1]) if r.quick else LINKS
    buffers = ["1BDP", "16BDP"] if r.quick else BUFFERS
    duration = "30s" if r.quick else "120s"
    runs = r.runs_or(5, 1)
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
    _share_figures(r, pd.concat(one_to_one), pd.concat(many))
    _share_claims(r, pd.concat(one_to_one), pd.concat(many))


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


def _share_claims(r: Reproduction, pairs: pd.DataFrame, many: pd.DataFrame) -> None:
    e = "bandwidth share"

    def pair(first: str, competitor: str) -> pd.DataFrame:
        return pairs[(pairs["first"] == first) & (pairs["competitor"] == competitor)]

    for (first, competitor), rows in pairs.groupby(["first", "competitor"]):
        for _, row in rows.iterrows():
            r.number(e, f"{first} share vs {competitor}", f"{row['link']}, {row['buffer_size']}", "", None, row["share"], "Fig. 8")
    intra = many[many["competitor"] == "roccet"]
    deviation = (intra["share"] - intra["group_size"] / (intra["group_size"] + 1)).abs()
    r.claim(e, "ROCCET shares nearly equally with other ROCCET flows (Fig. 7).", [holds("criterion 1", deviation.max() <= 0.1)], [],
            f"largest deviation of the ROCCET group's share from n/(n+1): {deviation.max():.3f} (criterion 0.1).")
    deep = pairs[pairs["buffer_size"].map(_bdp) > 1]
    against = pd.concat([deep[(deep["first"] == "roccet") & (deep["competitor"] == c)] for c in ("cubic", "bbr3")])
    r.claim(e, "Above 1 BDP, CUBIC and BBRv3 get more than an equal share against ROCCET (Fig. 8).",
            [holds("criterion 1", bool(len(against)) and bool((against["share"] < 0.5).all()))], [],
            f"ROCCET's share against CUBIC/BBRv3 above 1 BDP: {_spread(against)}.")
    same = pd.concat([pair("cubic", "cubic"), pair("bbr3", "bbr3")])
    r.claim(e, "CUBIC with CUBIC and BBRv3 with BBRv3 share nearly equally (Fig. 8).",
            [holds("criterion 1", ((same["share"] - 0.5).abs() <= 0.1).all())], [],
            f"shares {_spread(same)} (criterion: within 0.1 of 0.5).")
    versus_bbr = pair("roccet", "bbr3")
    versus_bbr = versus_bbr[versus_bbr["link"] == "50Mbps x 30ms"]
    r.claim(e, "On 50 Mbit/s x 30 ms, ROCCET's share against BBRv3 is always below 30% (Fig. 8).",
            [holds("criterion 1", (versus_bbr["share"] < 0.3).all())], [],
            f"shares {_spread(versus_bbr)}.")
    r.text("The shares of every one-to-one point are in numbers.csv (experiment 'bandwidth share').")


def capacity_drop(r: Reproduction) -> None:
    e = "capacity drop"
    r.text("## Capacity drop from 50 to 25 Mbit/s at 20 s (Fig. 9)")
    # The scenario has no random element: one run is the paper's "characteristic transmission".
    sweep = r.sweep("capacity-drop", "drop.toml", {"algorithm": (["flows.0.cc"], list(ALGORITHMS))}, r.runs_or(1, 1))
    series = sweep.timeseries
    events = sweep.events
    before = series[(series["time_s"] > 15) & (series["time_s"] <= 20)].groupby("algorithm")["srtt_ms"].median()
    after = series[series["time_s"] > 22].groupby("algorithm")["srtt_ms"].median()
    for cc in ALGORITHMS:
        r.number(e, f"median sRTT {cc} before the drop", "15-20 s", "ms", None, before[cc], "Fig. 9")
        r.number(e, f"median sRTT {cc} after the drop", "22-35 s", "ms", None, after[cc], "Fig. 9")
    roccet_events = events[(events["algorithm"] == "roccet") & (events["event"] == "roccet_event")] if len(events) else events
    first_after = roccet_events[roccet_events["time_s"] >= 20]["time_s"].groupby(roccet_events["run"]).min()
    delay = (first_after - 20).reindex(range(sweep.manifest["plan"]["runs"])).fillna(np.inf)
    r.number(e, "ROCCET's first congestion event after the drop", "worst run", "s", None, delay.max(), "Fig. 9b")
    r.numbers_table(e)
    _drop_figure(r, series)
    cubic_cwnd = series[(series["algorithm"] == "cubic") & (series["run"] == 0)]
    cwnd_before = cubic_cwnd[(cubic_cwnd["time_s"] > 18) & (cubic_cwnd["time_s"] <= 20)]["cwnd_bytes"].mean()
    cwnd_after = cubic_cwnd[(cubic_cwnd["time_s"] > 25)]["cwnd_bytes"].mean()
    r.claim(e, "CUBIC does not react to the halved capacity: its cwnd stays and its sRTT rises.",
            [holds("criterion 1", cwnd_after >= 0.8 * cwnd_before)], [holds("criterion 2", after["cubic"] > 1.5 * before["cubic"])],
            f"CUBIC's mean cwnd {cwnd_before / 1448:.0f} segments before, {cwnd_after / 1448:.0f} after 25 s "
            f"(criterion: not below 80%); median sRTT {before['cubic']:.0f} -> {after['cubic']:.0f} ms (criterion: x1.5).")
    r.claim(e, "ROCCET generates congestion events after the capacity drop.", [holds("criterion 1", bool(np.isfinite(delay).all()))], [],
            f"first ROCCET congestion event after 20 s, per run: {', '.join(f'{d:.2f} s' for d in delay)} after the drop.")
    r.claim(e, "After the drop BBRv3 keeps a higher sRTT than ROCCET.", [holds("criterion 1", after["bbr3"] > after["roccet"])], [],
            f"median sRTT after 22 s: BBRv3 {after['bbr3']:.0f} ms, ROCCET {after['roccet']:.0f} ms.")
    r.claim(e, "ROCCET's sRTT on the 16-BDP buffer is far below CUBIC's (Sec. IX with Sec. III).",
            [holds("criterion 1", after["roccet"] < 0.5 * after["cubic"])], [],
            f"median sRTT after the drop: ROCCET {after['roccet']:.0f} ms, CUBIC {after['cubic']:.0f} ms (criterion: below half).")


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
