"""Active Delay Control (papers/active-delay-control.txt): windows and timeouts against the RTT
(Figs. 2-3) and the router's queue size (Figs. 4-6), SDC's window against its maximum delay
(Fig. 7), SDC's timeouts and transfer times against the queue size (Figs. 8-9), and the two
receiver-based variants on the same axes (the paper has no numbers for them). Every criterion
below was written before the runs."""

from __future__ import annotations

import pandas as pd

from tcplab.reproduce import adc_claims
from tcplab.reproduce.adc_claims import TCP, WAS, estimate, paired
from tcplab.reproduce.context import Reproduction
from tcplab.reproduce.verdicts import at_least, at_most, within

TITLE = "Active Delay Control (SDC, exact RDC and 1-bit RDC against TCP with many flows)"
PACKET = 1000  # bytes of payload per segment: the ns2 profile's packetSize_, the paper's "1000 bytes"
# RTT = 2 x (access + 40 ms + access): the access delay that gives each RTT.
RTTS = {100: "5ms", 200: "30ms", 300: "55ms", 400: "80ms", 500: "105ms"}
BOTH_FLOWS = ("flows.0", "flows.1")
VARIANTS = {
    "Reno": {"tcp.recovery": "reno", "tcp.ecn": False, "tcp.limited_transmit": False},
    "Reno+ECN": {"tcp.recovery": "reno", "tcp.limited_transmit": False},
    "NewReno+ECN+LT": {},
    # SDC's own parameters replace newreno's (ns-2's reduction arithmetic is newreno's).
    "SDC": {**{f"{f}.cc": "sdc" for f in BOTH_FLOWS}, **{f"{f}.params": {"max_delay": "2s"} for f in BOTH_FLOWS}},
    "exact RDC": {"tcp.ack_delay": "exact_rdc", "topology.bottleneck.rdc_stamp": True},
    "1-bit RDC": {"tcp.ack_delay": "one_bit_rdc"},
}
# The paper's windows are averages over the run; tcplab leaves out the first 10 s (start-up).
SETTLED_S = 10.0


# The queue sizes ns-2.35 itself runs for the TCP baselines (each run takes ns-2 about 15 s).
NS2_SIZES = [100, 400, 800, 1200]
QUICK_NS2_SIZES = [100, 400]


def run(r: Reproduction) -> None:
    r.changes += [
        "Each point has 10 runs (3 before); claims are judged over the runs' 95% interval, with differences "
        "between queue sizes paired by run; combined claims are split; the paper's statements on flat timeouts "
        "above 400 packets, Reno close to the others from 1200, similar timeouts from 300 and SDC's transfer "
        "times above 400 are claims.",
        "ns-2.35 runs the three TCP baselines on the same scenario files (queue sizes "
        + ", ".join(map(str, NS2_SIZES)) + ").",
    ]
    r.text(f"""
## Setup

The paper simulates in ns-2 N TCP flows from senders S_i through router G0, a 1.5 Mbit/s, 40 ms
bottleneck with a RED queue of b packets (min_th b/6, max_th b/2, w_q 0.002, max_p 0.1, gentle),
and G1 to receivers R_i over 10 Mbit/s, 5 ms links, for 100 s (Table 1): 1000-byte packets, an
initial window of 2, NewReno, Limited Transmit and ECN unless stated. Scenarios:
`scenarios/papers/adc/` (`rtt.toml`, `many-flows.toml`), with the `ns2` TCP profile (ns-2.35's
defaults: a SYN first, one timed segment per RTT, 200 ms minimum RTO, no delayed ACKs, no SACK, the
20-packet `window_`; `ns2-legacy` has the 1 s minimum RTO of older releases).

Choices where the paper is silent (made before any comparison):
- **Average window**: the mean of every long flow's cwnd sampled every 100 ms from {SETTLED_S:.0f} s to
  100 s, in packets. **Timeouts**: the long flows' retransmission timeouts, summed: the paper explains
  its timeout counts by the long flows' average window (Figs. 4-5, 8). The short flows' timeouts are
  reported beside them; a new connection has no RTT estimate, so its first segments time out
  whenever the queue holds more than the initial RTO (3 s in ns-2) of data.
- **Short flows**: the 10 start at random in 30-31 s; each transfers 20 packets (20,000 bytes), and
  the next transfer starts on a new connection as soon as the receiver has the last byte (no think
  time; each connection opens with the `ns2` profile's SYN). Transfer time: from a connection's
  first segment to its last byte's arrival.
- **Reno** is ns-2's Reno (`recovery = "reno"`), without ECN and Limited Transmit; **Reno+ECN**
  adds ECN. **SDC** runs with a 2 s maximum delay (Figs. 8-9) on all 50 flows; the receiver-based
  variants run NewReno+ECN+LT with the receivers holding ACKs (docs/algorithms/rdc.md).
- Runs: {'quick form: one run per point and fewer points' if r.quick else 'ten runs per point (the paper does not say how many it made); numbers are means with their 95% interval'}.
""")
    rtt_sweep(r)
    queue_sweep(r)
    sdc_delay(r)


def _mean_cwnd(series: pd.DataFrame, keys: list[str]) -> pd.Series:
    """Per point and run: the long flows' mean cwnd in packets after the start-up."""
    rows = series[(series["time_s"] >= SETTLED_S) & series["name"].str.startswith("long")]
    return rows.groupby([*keys, "run"])["cwnd_bytes"].mean() / PACKET


def _timeouts(flows: pd.DataFrame, keys: list[str], group: str = "long") -> pd.Series:
    """Per point and run: the group's timeouts summed."""
    rows = flows[flows["name"].str.startswith(group)]
    runs = flows.groupby([*keys, "run"]).size().index
    return rows.groupby([*keys, "run"])["timeouts"].sum().reindex(runs, fill_value=0)


# The short flows start at random in 30-31 s (many-flows.toml) and restart on every completion.
SHORT_START_S = 30.0


def _timeout_timing(events: pd.DataFrame, flows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per point, means over runs: the long flows' timeouts before the short flows start and from
    then on, and from then on the most of them within one second (timeouts that come together)."""
    runs = flows.groupby([*keys, "run"]).size().index
    rows = events[(events["event"] == "timeout") & events["name"].str.startswith("long")]
    early = rows[rows["time_s"] < SHORT_START_S].groupby([*keys, "run"]).size().reindex(runs, fill_value=0)
    after = rows[rows["time_s"] >= SHORT_START_S]
    late = after.groupby([*keys, "run"]).size().reindex(runs, fill_value=0)
    per_second = after.assign(second=after["time_s"].floordiv(1)).groupby([*keys, "run", "second"]).size()
    burst = per_second.groupby([*keys, "run"]).max().reindex(runs, fill_value=0)
    return pd.DataFrame({"timeouts_before_short": early.groupby(keys).mean(),
                         "timeouts_from_short": late.groupby(keys).mean(),
                         "largest_burst": burst.groupby(keys).mean()})


def rtt_sweep(r: Reproduction) -> None:
    e = "RTT"
    r.text("## Windows and timeouts against the RTT (Figs. 2-3): 50 flows, b = 100")
    rtts = [100, 300, 500] if r.quick else list(RTTS)
    sweep = r.sweep("rtt", "rtt.toml", {"access_delay": (["topology.access.delay"], [RTTS[t] for t in rtts])},
                    r.runs_or(10, 1))
    by_delay = {RTTS[t]: t for t in rtts}
    frame = pd.DataFrame({"cwnd": _mean_cwnd(sweep.timeseries, ["access_delay"]),
                          "timeouts": _timeouts(sweep.flows, ["access_delay"])})
    frame.index = frame.index.set_levels([[by_delay[d] for d in frame.index.levels[0]], frame.index.levels[1]])
    frame.index.names = ["b", "run"]  # adc_claims' helpers take the first level as the point
    for rtt in rtts:
        r.number(e, "average cwnd", f"RTT {rtt} ms", "packets", None, estimate(frame, rtt, "cwnd"), "Fig. 2")
        r.number(e, "timeouts", f"RTT {rtt} ms", "", None, estimate(frame, rtt, "timeouts"), "Fig. 3")
    r.numbers_table(e)
    means = frame.groupby(level="b").mean().reindex(rtts)
    _rtt_figure(r, means["cwnd"], means["timeouts"])
    r.claim(e, "The average cwnd grows as the RTT grows (Fig. 2; criterion: each step of the RTT raises the cwnd, "
            "paired by run).",
            [at_least(f"cwnd at {b} ms - at {a} ms", paired(frame, b, frame, a, "cwnd"), 0.001, " packets")
             for a, b in zip(rtts, rtts[1:])], was=WAS["cwnd rtt"])
    r.claim(e, "At RTT 100 ms each flow has fewer than three packets in flight on average (118 in all) (Sec. 4; "
            "criterion: below 3).", [at_most("cwnd at 100 ms", estimate(frame, 100, "cwnd"), 3.0, " packets")],
            was=WAS["cwnd 100 ms"])
    r.claim(e, "At RTT 500 ms each flow has about four packets in flight (193 in all) (Sec. 4; criterion: 3.5 to "
            "4.5).", [within("cwnd at 500 ms", estimate(frame, 500, "cwnd"), 3.5, 4.5, " packets")])
    r.claim(e, "The total number of timeouts decreases as the average cwnd increases (Fig. 3; criterion: timeouts at "
            "the largest RTT (largest cwnd) minus at the smallest, paired by run, below 0; secondary: each step).",
            [at_most(f"timeouts at {rtts[-1]} ms - at {rtts[0]} ms", paired(frame, rtts[-1], frame, rtts[0], "timeouts"),
                     -0.5)],
            [at_most(f"timeouts at {b} ms - at {a} ms", paired(frame, b, frame, a, "timeouts"), -0.5)
             for a, b in zip(rtts, rtts[1:])], was=WAS["timeouts cwnd"])


def _rtt_figure(r: Reproduction, cwnd: pd.Series, timeouts: pd.Series) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    axes[0].plot(cwnd.index, cwnd.values, marker="o")
    axes[0].set(xlabel="RTT (ms)", ylabel="average cwnd (packets)", title="Fig. 2")
    axes[1].plot(cwnd.values, timeouts.values, marker="o")
    axes[1].set(xlabel="average cwnd (packets)", ylabel="timeouts (50 flows)", title="Fig. 3")
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.tight_layout()
    r.figure("rtt", fig, "NewReno with ECN and Limited Transmit, 50 flows: average cwnd against the RTT and "
             "timeouts against the average cwnd (the paper's Figs. 2-3)")


def _queue_run_metrics(sweep) -> pd.DataFrame:
    """Per queue size (packets) and run: average cwnd, timeouts of the long and of the short flows,
    and the short flows' median transfer time."""
    keys = ["buffer_size"]
    transfers = sweep.transfers
    median = (transfers.groupby([*keys, "run"])["duration_s"].median() if len(transfers)
              else pd.Series(dtype=float))
    frame = pd.DataFrame({"cwnd": _mean_cwnd(sweep.timeseries, keys), "timeouts": _timeouts(sweep.flows, keys),
                          "short_timeouts": _timeouts(sweep.flows, keys, "short"), "transfer_s": median})
    sizes = [int(str(b).removesuffix("p")) for b in frame.index.get_level_values(0)]
    frame.index = pd.MultiIndex.from_arrays([sizes, frame.index.get_level_values(1)], names=["b", "run"])
    return frame.sort_index()


def _by_queue_size(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame indexed by the queue size in packets ("100p" -> 100), smallest first."""
    frame.index = [int(str(b).removesuffix("p")) for b in frame.index]
    return frame.sort_index()


def _slug(variant: str) -> str:
    return variant.lower().replace("+", "-").replace(" ", "-")


def queue_sweep(r: Reproduction) -> None:
    r.text("## Windows, timeouts and transfer times against the queue size (Figs. 4-6, 8-9): 40 long and "
           "10 short flows")
    sizes = [100, 400, 1000] if r.quick else list(range(100, 1501, 100))
    runs = r.runs_or(10, 1)
    per_run, sweeps, engine = {}, {}, {}
    for variant, overrides in VARIANTS.items():
        sweeps[variant] = r.sweep(f"queue-{_slug(variant)}", "many-flows.toml",
                                  {"buffer_size": (["topology.bottleneck.buffer"], [f"{b}p" for b in sizes])},
                                  runs, overrides)
        per_run[variant] = _queue_run_metrics(sweeps[variant])
    ns2_sizes = QUICK_NS2_SIZES if r.quick else NS2_SIZES
    for variant in TCP:
        sweep = r.sweep(f"ns2-queue-{_slug(variant)}", "many-flows.toml",
                        {"buffer_size": (["topology.bottleneck.buffer"], [f"{b}p" for b in ns2_sizes])}, runs,
                        VARIANTS[variant], backend="ns2")
        engine[variant] = _queue_run_metrics(sweep)
    results = {variant: frame.groupby(level="b").mean() for variant, frame in per_run.items()}
    e = "queue size"
    for variant, frame in per_run.items():
        for b in sorted(set(frame.index.get_level_values("b"))):
            for column, quantity, unit, figure in QUEUE_QUANTITIES:
                engines = ({"ns2": estimate(engine[variant], b, column)}
                           if variant in engine and b in set(engine[variant].index.get_level_values("b")) else None)
                r.number(e, f"{variant}: {quantity}", f"b = {b}", unit, None, estimate(frame, b, column), figure,
                         engines=engines)
    _queue_figure(r, results, {v: f.groupby(level="b").mean() for v, f in engine.items()})
    r.text(_queue_table(results))
    adc_claims.tcp_claims(r, per_run, engine)
    newreno = sweeps["NewReno+ECN+LT"]
    timing = _by_queue_size(_timeout_timing(newreno.events, newreno.flows, ["buffer_size"]))
    _timeouts_when_short_flows_start(r, results["NewReno+ECN+LT"].join(timing))
    adc_claims.sdc_claims(r, per_run)


# Column of the per-point frame -> the quantity's name in numbers.csv, its unit and its figure.
QUEUE_QUANTITIES = [
    ("cwnd", "average cwnd", "packets", "Figs. 4, 7"),
    ("timeouts", "timeouts of the long flows", "", "Figs. 5, 8"),
    ("short_timeouts", "timeouts of the short flows", "", "-"),
    ("transfer_s", "median transfer time", "s", "Figs. 6, 9"),
]


def _queue_table(results: dict[str, pd.DataFrame]) -> str:
    lines = ["| b | " + " | ".join(results) + " |", "|---:|" + "---|" * len(results)]
    for b in next(iter(results.values())).index:
        cells = [f"{f.loc[b, 'cwnd']:.2f} / {f.loc[b, 'timeouts']:.0f} / {f.loc[b, 'short_timeouts']:.0f} / "
                 f"{f.loc[b, 'transfer_s']:.2f}" for f in results.values()]
        lines.append(f"| {b} | " + " | ".join(cells) + " |")
    return ("Each cell: the long flows' average cwnd (packets) / the long flows' timeouts / the short flows' "
            "timeouts / the median short-transfer time (s).\n\n" + "\n".join(lines))


def _queue_figure(r: Reproduction, results: dict[str, pd.DataFrame], engine: dict[str, pd.DataFrame]) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for variant, frame in results.items():
        style = "-" if variant in TCP else "--"
        for ax, column in zip(axes, ["cwnd", "timeouts", "transfer_s"]):
            line = ax.plot(frame.index, frame[column], style, marker="o", markersize=3, label=variant)[0]
            if variant in engine:
                ax.plot(engine[variant].index, engine[variant][column], linestyle="none", marker="x", markersize=7,
                        color=line.get_color(), label=f"{variant} on ns-2.35")
    for ax, label, title in zip(axes, ["average cwnd (packets)", "timeouts (long flows)", "median transfer time (s)"],
                                ["Figs. 4, 7", "Figs. 5, 8", "Figs. 6, 9"]):
        ax.set(xlabel="queue size b (packets)", ylabel=label, title=title)
        ax.grid(alpha=0.3)
    axes[0].axhline(4, color="grey", linestyle=":", linewidth=0.8)
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    r.figure("queue-size", fig, "40 long and 10 restarting 20-packet flows against the RED queue size b: TCP (solid), "
             "the same TCP on ns-2.35 (crosses) and the delay-control variants (dashed; SDC with a 2 s maximum delay); "
             "means over the runs")


def _timeouts_when_short_flows_start(r: Reproduction, newreno: pd.DataFrame) -> None:
    """When NewReno+ECN+LT's long flows time out: before or after the short flows start, and how
    many together."""
    e = "queue size"
    for b, row in newreno.iterrows():
        for column, quantity in [("timeouts_before_short", f"timeouts of the long flows before {SHORT_START_S:.0f} s"),
                                 ("timeouts_from_short", f"timeouts of the long flows from {SHORT_START_S:.0f} s"),
                                 ("largest_burst", f"most long-flow timeouts within one second from {SHORT_START_S:.0f} s")]:
            r.number(e, f"NewReno+ECN+LT: {quantity}", f"b = {b}", "", None, row[column], "(analysis)")
    start = f"{SHORT_START_S:.0f} s"
    lines = [f"| b | long-flow timeouts | before {start} | from {start} | from {start}, most within one second |",
             "|---:|---:|---:|---:|---:|"]
    for b, row in newreno.iterrows():
        lines.append(f"| {b} | {row['timeouts']:.0f} | {row['timeouts_before_short']:.0f} | "
                     f"{row['timeouts_from_short']:.0f} | {row['largest_burst']:.0f} |")
    first, last = newreno.index[0], newreno.index[-1]
    trend = "fall" if newreno.loc[last, "timeouts"] < newreno.loc[first, "timeouts"] else "do not fall"
    r.text(f"""### When NewReno+ECN+LT's long flows time out

The table shows when the long flows' timeouts happen (means over the runs); in this run they
{trend} from b = {first} to b = {last}. With a small queue the long flows time out in their start-up,
before the short flows begin at {start}. With a large one the timeouts that remain come after it:
the restarting short flows' slow starts keep raising the queue, and a long flow whose RTT rises past
its retransmission timeout (SRTT + 4 RTTVAR, with RTTVAR small after a calm stretch) times out
whether or not a segment was lost. With ECN the RED queue marks rather than drops while its
average is below the maximum threshold, so spurious timeouts are the likely kind; these tables do
not tell them apart.

""" + "\n".join(lines))


def sdc_delay(r: Reproduction) -> None:
    e = "SDC maximum delay"
    r.text("## SDC's window against its maximum delay (Fig. 7): b = 100")
    delays = ["0.2s", "2s"] if r.quick else ["0.2s", "0.5s", "1s", "1.5s", "2s"]
    # SDC's own parameters replace newreno's; the sweep sets max_delay.
    overrides = {**{f"{f}.cc": "sdc" for f in BOTH_FLOWS}, **{f"{f}.params": {} for f in BOTH_FLOWS}}
    sweep = r.sweep("sdc-max-delay", "many-flows.toml",
                    {"max_delay": ([f"{f}.params.max_delay" for f in BOTH_FLOWS], delays)}, r.runs_or(10, 1), overrides)
    frame = _mean_cwnd(sweep.timeseries, ["max_delay"]).to_frame("cwnd")
    frame.index.names = ["b", "run"]  # adc_claims' helpers take the first level as the point
    r.number(e, "average cwnd", "maximum delay 0.2 s", "packets", 4.0, estimate(frame, "0.2s", "cwnd"),
             "Fig. 7: 'more than four'")
    r.number(e, "average cwnd", "maximum delay 2 s", "packets", 7.0, estimate(frame, "2s", "cwnd"),
             "Fig. 7: 'grows to seven'")
    for delay in delays[1:-1]:
        r.number(e, "average cwnd", f"maximum delay {delay}", "packets", None, estimate(frame, delay, "cwnd"), "Fig. 7")
    r.numbers_table(e)
    r.claim(e, "SDC's average cwnd grows with the maximum delay (Fig. 7; criterion: each step of the maximum delay "
            "raises it, paired by run; secondary: above 4 packets at 0.2 s, 6 to 8 at 2 s).",
            [at_least(f"cwnd at {b} - at {a}", paired(frame, b, frame, a, "cwnd"), 0.001, " packets")
             for a, b in zip(delays, delays[1:])],
            [at_least("cwnd at 0.2 s", estimate(frame, "0.2s", "cwnd"), 4.0, " packets"),
             within("cwnd at 2 s", estimate(frame, "2s", "cwnd"), 6.0, 8.0, " packets")], was=WAS["sdc delay"])
