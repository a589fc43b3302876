"""The Compound TCP comparison (papers/compound-tcp-comparison.txt): Reno, NewReno, BIC, CUBIC,
Vegas, Veno and Compound TCP on a three-router chain with UDP cross traffic (Fig. 1, Table I);
throughput, one-way delay and loss ratio (Tables II-IV), cwnd and per-second throughput (Figs. 2-3).
The paper leaves buffer, packet size, window limit, UDP rate and flow placement unstated, so the
report sweeps each and shows how the ranking moves. Every criterion below was written before the
runs."""

from __future__ import annotations

import pandas as pd

import math

from tcplab.backends.ns2.preflight import LINUX_AGENT_PARAMS
from tcplab.reproduce.context import Reproduction
from tcplab.reproduce.verdicts import holds

TITLE = "Compound TCP and six other algorithms on a three-router chain (ns-2 comparison)"
ALGORITHMS = ("reno", "newreno", "bic", "cubic", "vegas", "veno", "compound")
LABELS = {"reno": "Reno", "newreno": "Newreno", "bic": "BIC", "cubic": "CUBIC", "vegas": "Vegas", "veno": "Veno",
          "compound": "CTCP"}
# Tables II-IV.
THROUGHPUT = {"reno": 108.68, "newreno": 106.23, "bic": 107.23, "cubic": 118.02, "vegas": 83.41, "veno": 113.67,
              "compound": 108.68}
DELAY = {"reno": 44.0319, "newreno": 44.0322, "bic": 44.0326, "cubic": 44.0320, "vegas": 44.0315, "veno": 44.0298,
         "compound": 44.0324}
LOSS = {"reno": 0.0102, "newreno": 0.0108, "bic": 0.0582, "cubic": 0.0126, "vegas": 0.0081, "veno": 0.0122,
        "compound": 0.0138}
PRIMARY = "primary (ns-2 defaults)"
UNLIMITED = {"tcp.receive_window": "10MB"}
# Configuration -> the overrides that make it from the primary one (one unstated choice at a time;
# from "window 10000 p" on, with windows that do not limit).
CONFIGURATIONS = {
    PRIMARY: {},
    "window 100 p": {"tcp.receive_window": "100000B"},
    "window 1000 p": {"tcp.receive_window": "1MB"},
    "window 10000 p": UNLIMITED,
    "window 10000 p, buffer 500 p": {**UNLIMITED, "topology.hops.0.buffer": "500p", "topology.hops.1.buffer": "500p"},
    "window 10000 p, buffer 5000 p": {**UNLIMITED, "topology.hops.0.buffer": "5000p",
                                      "topology.hops.1.buffer": "5000p"},
    "window 10000 p, UDP 100 Mbit/s": {**UNLIMITED, "flows.2.rate": "100Mbps", "flows.2.packet_size": "1000B"},
    "window 10000 p, UDP 500 Mbit/s": {**UNLIMITED, "flows.2.rate": "500Mbps", "flows.2.packet_size": "1000B"},
    "window 10000 p, 1460-byte segments": {**UNLIMITED, "tcp.mss": "1460B"},
    "window 10000 p, one TCP source at R1": {**UNLIMITED, "flows.0.count": 1},
    # Linux BIC and CUBIC of the 2.6 kernels (ns-2's Linux agent carried them) started at 100.
    "window 10000 p, initial ssthresh 100 p": {**UNLIMITED, "tcp.initial_ssthresh": 100},
}
QUICK = [PRIMARY, "window 10000 p", "window 10000 p, UDP 500 Mbit/s"]
# One 1000-byte segment's serialisation on the 1 Gbit/s chain: 8 us. A delay ranking whose
# published spread is smaller than this cannot be told apart from where a packet lands in a slot.
SERIALISATION_MS = 1000 * 8 / 1e9 * 1e3
# Verdicts of the report of 2026-11-25, by that report's claim id.
PREVIOUS = {"cubic top": ("ctcp-study-1", "not reproduced"), "veno delay": ("ctcp-study-2", "not reproduced"),
            "vegas loss": ("ctcp-study-3", "not reproduced"), "delay 44": ("ctcp-study-4", "reproduced")}


def run(r: Reproduction) -> None:
    r.text(f"""
## Setup

The paper compares seven TCP algorithms in ns-2 on Fig. 1's chain: routers R1-R2-R3 joined by
1 Gbit/s, 20 ms drop-tail links, sources and sinks on 1 Gbit/s, 2 ms links, 8 sources and 8 sinks,
"one TCP and one UDP source node" attached at R2, 100 s (Table I). It reports the average
throughput traced on R2-R3 (Table II), the average end-to-end delay (Table III) and the packet loss
ratio (Table IV). Scenario: `scenarios/papers/ctcp-study/chain.toml`.

What the paper does not state, and the evidence: its delays (44.0298 to 44.0326 ms) are the
propagation delay R1's sources see (2 + 20 + 20 + 2 ms) plus a few microseconds, so the queues were
almost always empty: the flows did not fill the 1 Gbit/s path, i.e. they were limited by their
window, not by the network. The **primary configuration** therefore takes ns-2's own defaults for
everything unstated: DropTail queues of 50 packets (`limit_`), 1000-byte segments (`packetSize_`),
a window of 20 packets (`window_`; the `ns2` profile), a CBR source at its default 448 kbit/s with
210-byte packets; the six other sources are TCP flows at R1 (all seven flows run the algorithm
compared). Reno and NewReno are ns-2's own agents (Reno's and NewReno's recovery, no SACK); BIC,
CUBIC, Vegas, Veno and CTCP are Linux modules, which ns-2 runs in its Linux TCP agent: SACK recovery
(its Scoreboard1) without RACK, tail loss probes or PRR, as tcplab's `ns2` profile has them.
Throughput is the R2-R3 link's (all packets, headers included), delay the mean
one-way delay of R1's flows' data, loss the TCP packets dropped over those sent.

The sweep changes one unstated choice at a time: the window (100, 1000, 10000 packets), and with
windows that do not limit, the buffers (500, 5000 packets), the UDP rate (100, 500 Mbit/s), the
segment size (1460 bytes), the placement (one TCP source at R1), the initial slow-start threshold
(100 packets). The Linux modules are the versions ns-2.35's Linux agent carries (Linux 2.6.22: CUBIC 2.1 with
its decrease factor 819/1024 and no HyStart, BIC with 819/1024). ns-2 runs are deterministic and
so are these: one run per point. {'Quick form: ' + ', '.join(QUICK) + ', 10 s each.' if r.quick else ''}
""")
    r.changes += [
        "The Reno row is ns-2's Reno agent (NewReno's window rules, Reno's recovery), as the paper ran it; it was "
        "Linux's Reno module, which stops growing when not cwnd-limited, with Reno's recovery. Reno and NewReno "
        "reduce as ns-2's slowdown() does (half the window), not by RFC 5681's half of the flight size.",
        "The five Linux modules run as ns-2's Linux agent does: window_ clamps cwnd (it was a receive window, "
        "which lets a Linux module's cwnd grow past it), the retransmission timer restarts on every ACK, and its "
        "scoreboard finds lost retransmissions (RACK in tcplab's terms), and the first ssthresh is window_.",
        "Compound TCP no longer grows while the flow is not cwnd-limited (the Linux 2.6.22 module ns-2 runs "
        "returns from its increase unless tcp_is_cwnd_limited); it grew to about 22,000 packets under the "
        "receive window before.",
        "The primary configuration is the one whose throughput, loss and delay together are nearest the "
        "paper's (below), not ns-2's defaults by assumption; ns-2.35 itself runs it beside tcplab.",
        "Combined claims are split, and the paper's other statements (BIC's loss highest, Reno = CTCP, Reno least "
        "stable, Veno's highest peak) are claims.",
    ]
    configurations = QUICK if r.quick else list(CONFIGURATIONS)
    results = {name: _run_configuration(r, index, name) for index, name in enumerate(configurations)}
    metrics = {name: m for name, (m, _) in results.items()}
    primary_name = _nearest_configuration(r, metrics)
    engine = _run_configuration(r, len(configurations), primary_name, backend="ns2")
    _tables(r, primary_name, results[primary_name][0], engine[0])
    _figures(r, {name: results[name][1] for name in dict.fromkeys((primary_name, PRIMARY, "window 10000 p"))
                 if name in results})
    _claims(r, primary_name, results[primary_name][0], engine[0])
    _sensitivity(r, metrics)


def _run_configuration(r: Reproduction, index: int, name: str,
                       backend: str = "simulator") -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Every algorithm in one configuration on `backend`: its metrics, and its tables for the
    figures. Each of ns-2's agents (Reno, NewReno, the Linux agent with SACK) is a sweep of its own."""
    overrides = dict(CONFIGURATIONS[name])
    if r.quick:
        overrides["simulation.duration"] = "10s"
    # ns-2's Reno agent is its NewReno window rules with Reno's recovery (the ns-2 back-end maps
    # newreno + recovery "reno" to Agent/TCP/Reno); its sweep's rows are labelled "reno" below.
    # Both reduce as ns-2's slowdown() does (half the window, not of the flight size).
    slowdown = {f"flows.{flow}.params.reduction": "ns2_slowdown" for flow in (0, 1)}
    groups = {"reno": (["newreno"], {"tcp.recovery": "reno", **slowdown}),
              "newreno": (["newreno"], {"tcp.recovery": "newreno", **slowdown})}
    # The five Linux modules, each with the parameters of the version ns-2's Linux agent carries.
    for cc in ALGORITHMS[2:]:
        params = LINUX_AGENT_PARAMS[cc]
        groups[cc] = ([cc], {**_linux_agent(overrides), **{f"flows.{flow}.params.{key}": value
                                                          for flow in (0, 1) for key, value in params.items()}})
    prefix = "config" if backend == "simulator" else f"{backend}-config"
    sweeps = [r.sweep(f"{prefix}-{index}-{group}", "chain.toml", {"algorithm": (["flows.0.cc", "flows.1.cc"], ccs)},
                      r.runs_or(1, 1), {**overrides, **extra}, backend=backend) for group, (ccs, extra) in groups.items()]
    labelled = [(sweep, group) for sweep, group in zip(sweeps, groups)]
    tables = {table: pd.concat([getattr(sweep, table).assign(algorithm="reno") if group == "reno" else getattr(sweep, table)
                                for sweep, group in labelled])
              for table in ("flows", "links", "timeseries", "queues")}
    return _metrics(tables["flows"], tables["links"], tables["queues"]), tables


# ns-2's window_ of the primary configuration (the ns2 profile's receive window), in packets.
NS2_WINDOW_PACKETS = 20
WINDOW_PACKETS = {"100000B": 100, "1MB": 1000, "10MB": 10000}


def _linux_agent(overrides: dict) -> dict:
    """What ns-2's Linux TCP agent does, as tcplab keys: SACK recovery whose scoreboard finds lost
    retransmissions (as RACK does), the retransmission timer renewed on every ACK, and window_ as a
    clamp on cwnd rather than a receive window (tcp-linux.cc); the receive window is set to twice
    the clamp so that it never limits first. Reno and NewReno are ns-2's one-way agents, whose
    window_ is the receive window."""
    window = WINDOW_PACKETS.get(overrides.get("tcp.receive_window"), NS2_WINDOW_PACKETS)
    segment = int(str(overrides.get("tcp.mss", "1000B")).removesuffix("B"))
    return {"tcp.recovery": "sack", "tcp.rack": True, "tcp.rto_restart": "every_ack", "tcp.cwnd_clamp": window,
            "tcp.receive_window": f"{2 * window * segment}B",
            # The agent's first ssthresh is window_, unless the configuration sets its own.
            "tcp.initial_ssthresh": overrides.get("tcp.initial_ssthresh", window)}


def _metrics(flows: pd.DataFrame, links: pd.DataFrame, queues: pd.DataFrame) -> pd.DataFrame:
    """Per algorithm: R2-R3 throughput (Mbit/s), R1 flows' one-way delay (ms), TCP loss ratio (%),
    and of the R2-R3 throughput every second (Fig. 3) its coefficient of variation (instability)
    and its peak (Mbit/s)."""
    hop = links[(links["link"] == "R2-R3") & (links["direction"] == "forward")]
    throughput = hop.groupby("algorithm")["throughput_bps"].mean() / 1e6
    tcp = flows[flows["protocol"] == "tcp"]
    delay = tcp[tcp["name"].str.startswith("r1")].groupby("algorithm")["one_way_delay_mean_ms"].mean()
    totals = tcp.groupby("algorithm")[["packets_lost", "packets_sent"]].sum()
    loss = 100 * totals["packets_lost"] / totals["packets_sent"]
    samples = queues[(queues["link"] == "R2-R3") & (queues["direction"] == "forward")]
    per_second = samples.groupby("algorithm")["throughput_bps"]
    variation = per_second.std() / per_second.mean()
    peak = per_second.max() / 1e6
    return pd.DataFrame({"throughput": throughput, "delay": delay, "loss": loss, "variation": variation,
                         "peak": peak}).reindex(list(ALGORITHMS))


def _distance(metrics: pd.DataFrame) -> float:
    """How far a configuration is from Tables II-IV, all three together: the mean over the seven
    algorithms of |ln(throughput / published)| + |ln((loss + 0.001%) / (published + 0.001%))| +
    |delay - published| / published. Logarithms weigh a factor of two the same either way; 0.001%
    keeps a loss of zero finite (a tenth of the smallest published ratio)."""
    total = 0.0
    for cc in ALGORITHMS:
        row = metrics.loc[cc]
        total += abs(math.log(max(row["throughput"], 1e-9) / THROUGHPUT[cc]))
        total += abs(math.log((row["loss"] + 0.001) / (LOSS[cc] + 0.001)))
        total += abs(row["delay"] - DELAY[cc]) / DELAY[cc]
    return total / len(ALGORITHMS)


def _nearest_configuration(r: Reproduction, metrics: dict[str, pd.DataFrame]) -> str:
    """The configuration nearest the paper in throughput, loss and delay together (rule fixed
    before the runs: smallest `_distance`)."""
    distances = {name: _distance(m) for name, m in metrics.items()}
    chosen = min(distances, key=distances.get)
    r.text("## Which configuration is the paper's\n\nThe primary configuration is the one nearest Tables II-IV in "
           "throughput, loss and delay together (the mean over the algorithms of |ln(throughput ratio)| + "
           "|ln(loss ratio)| + relative delay difference; rule fixed before the runs):\n\n"
           "| configuration | distance |\n|---|---:|\n" + "\n".join(
               f"| {name}{' (chosen)' if name == chosen else ''} | {d:.3f} |" for name, d in distances.items()))
    return chosen


def _tables(r: Reproduction, name: str, primary: pd.DataFrame, engine: pd.DataFrame) -> None:
    for experiment, column, unit, published, source in [
        ("throughput", "throughput", "Mbit/s", THROUGHPUT, "Table II"),
        ("end-to-end delay", "delay", "ms", DELAY, "Table III"),
        ("packet loss ratio", "loss", "%", LOSS, "Table IV"),
    ]:
        r.text(f"## {experiment.capitalize()} ({source}), primary configuration ({name}), with ns-2.35 beside")
        for cc in ALGORITHMS:
            r.number(experiment, LABELS[cc], name, unit, published[cc], primary.loc[cc, column], source,
                     engines={"ns2": engine.loc[cc, column]})
        r.numbers_table(experiment)
    r.text("## Per-second throughput (Fig. 3): variation and peak")
    for cc in ALGORITHMS:
        r.number("per-second throughput", f"{LABELS[cc]} coefficient of variation", name, "", None,
                 primary.loc[cc, "variation"], "Fig. 3", engines={"ns2": engine.loc[cc, "variation"]})
        r.number("per-second throughput", f"{LABELS[cc]} peak", name, "Mbit/s", None, primary.loc[cc, "peak"], "Fig. 3",
                 engines={"ns2": engine.loc[cc, "peak"]})
    r.numbers_table("per-second throughput")


def _figures(r: Reproduction, tables: dict[str, dict[str, pd.DataFrame]]) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(tables), figsize=(5.5 * len(tables), 6.5), sharex=True, squeeze=False)
    for column, (name, table) in enumerate(tables.items()):
        series, queues = table["timeseries"], table["queues"]
        for cc in ALGORITHMS:
            flow = series[(series["algorithm"] == cc) & (series["name"] == "r1-0")]
            axes[0][column].plot(flow["time_s"], flow["cwnd_bytes"] / 1000, label=LABELS[cc], linewidth=0.9)
            hop = queues[(queues["algorithm"] == cc) & (queues["link"] == "R2-R3") & (queues["direction"] == "forward")]
            axes[1][column].plot(hop["time_s"], hop["throughput_bps"] / 1e6, label=LABELS[cc], linewidth=0.9)
        axes[0][column].set(title=name, ylabel="cwnd of one R1 flow (packets)")
        axes[1][column].set(xlabel="time (s)", ylabel="R2-R3 throughput (Mbit/s)")
    for ax in axes.flat:
        ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    r.figure("cwnd-and-throughput", fig, "cwnd of one flow from R1 (the paper's Fig. 2) and the R2-R3 throughput "
             "every second (Fig. 3): the configuration nearest the paper, ns-2's 20-packet window, and windows that "
             "do not limit")


def _strict_extreme(values: pd.Series, cc: str, highest: bool) -> bool:
    """`cc` alone has the highest (or lowest) value."""
    others = values.drop(cc)
    return bool(values[cc] > others.max()) if highest else bool(values[cc] < others.min())


def _values(values: pd.Series, unit: str, digits: int) -> str:
    return ", ".join(f"{LABELS[cc]} {values[cc]:.{digits}f}" for cc in ALGORITHMS) + f" {unit}"


# The paper's orderings as (claim key, statement, metric, algorithm, highest?). Each is one claim,
# judged the same way on every configuration of the sensitivity table.
ORDERINGS = [
    ("cubic top", "CUBIC achieves the highest average throughput (Table II).", "throughput", "cubic", True),
    ("vegas last", "Vegas achieves the lowest average throughput (Table II).", "throughput", "vegas", False),
    ("veno delay", "Veno has the lowest average end-to-end delay (Table III).", "delay", "veno", False),
    ("bic delay", "BIC has the highest average end-to-end delay (Table III).", "delay", "bic", True),
    ("vegas loss", "Vegas has the lowest packet loss ratio (Table IV).", "loss", "vegas", False),
    ("bic loss", "BIC has the highest packet loss ratio (Table IV: 0.0582%, four times the next).", "loss", "bic", True),
    ("reno unstable", "Reno shows the least stable throughput (Fig. 3: the largest coefficient of variation of the "
     "per-second throughput).", "variation", "reno", True),
    ("veno peak", "Veno achieves the highest maximum throughput (Fig. 3, Sec. V).", "peak", "veno", True),
]
UNITS = {"throughput": ("Mbit/s", 2), "delay": ("ms", 4), "loss": ("%", 4), "variation": ("", 3), "peak": ("Mbit/s", 1)}


def _ordering_check(metrics: pd.DataFrame, metric: str, cc: str, highest: bool):
    unit, digits = UNITS[metric]
    word = "highest" if highest else "lowest"
    return holds(f"{LABELS[cc]} alone {word}: {_values(metrics[metric], unit, digits)}",
                 _strict_extreme(metrics[metric], cc, highest))


def _claims(r: Reproduction, name: str, primary: pd.DataFrame, engine: pd.DataFrame) -> None:
    e = f"primary configuration ({name})"
    published_delay_spread = max(DELAY.values()) - min(DELAY.values())
    for key, text, metric, cc, highest in ORDERINGS:
        untestable = None
        if metric == "delay":
            untestable = (f"the published delays span {published_delay_spread * 1000:.1f} us, less than one 1000-byte "
                          f"segment's serialisation at 1 Gbit/s ({SERIALISATION_MS * 1000:.0f} us): the ranking is "
                          "below what a packet-level model resolves")
        r.claim(e, text, [_ordering_check(primary, metric, cc, highest)], not_testable=untestable,
                engines={"ns2": [_ordering_check(engine, metric, cc, highest)]}, was=PREVIOUS.get(key))
    ratio = primary.loc["reno", "throughput"] / primary.loc["compound", "throughput"]
    engine_ratio = engine.loc["reno", "throughput"] / engine.loc["compound", "throughput"]
    r.claim(e, "Reno and CTCP reach the same average throughput (Table II: 108.68 Mbit/s both; criterion: within 1%).",
            [holds(f"Reno / CTCP = {ratio:.4f}", abs(ratio - 1) <= 0.01)],
            engines={"ns2": [holds(f"Reno / CTCP = {engine_ratio:.4f}", abs(engine_ratio - 1) <= 0.01)]})
    delay = primary["delay"]

    def near_44(values: pd.Series) -> list:
        return [holds(f"{values.min():.4f} to {values.max():.4f} ms within 0.1 ms of 44 ms",
                      bool(((values - 44.0).abs() < 0.1).all()))]

    r.claim(e, "Every algorithm's average delay is the 44 ms propagation delay plus a few microseconds (Table III: "
            "44.0298 to 44.0326 ms).", near_44(delay),
            [holds(f"spread {1000 * (delay.max() - delay.min()):.1f} us below 10 us", delay.max() - delay.min() < 0.01)],
            engines={"ns2": near_44(engine["delay"])}, was=PREVIOUS["delay 44"])
    r.text("Fig. 2's \"Veno is more robust than other existing schemes\" names no measurable property and is not "
           "judged.")


def _sensitivity(r: Reproduction, results: dict[str, pd.DataFrame]) -> None:
    r.text("## How the results move with the unstated choices\n\nPer configuration: each algorithm's R2-R3 "
           "throughput, TCP loss ratio and mean delay of R1's flows, and which of the paper's orderings hold; the last "
           "row counts the configurations in which each holds.")
    keys = [key for key, *_ in ORDERINGS]
    lines = ["| configuration | throughput (Mbit/s) | loss (%) | delay (ms) | " + " | ".join(keys) + " |",
             "|---|---|---|---|" + "---|" * len(keys)]
    counts = dict.fromkeys(keys, 0)
    for name, metrics in results.items():
        held = [_strict_extreme(metrics[metric], cc, highest) for _, _, metric, cc, highest in ORDERINGS]
        for key, h in zip(keys, held):
            counts[key] += h
        cells = [", ".join(f"{LABELS[cc]} {metrics.loc[cc, column]:.{digits}f}" for cc in ALGORITHMS)
                 for column, digits in (("throughput", 1), ("loss", 4), ("delay", 3))]
        lines.append(f"| {name} | " + " | ".join(cells) + " | " + " | ".join("yes" if h else "no" for h in held) + " |")
        for cc in ALGORITHMS:
            for column, unit in (("throughput", "Mbit/s"), ("loss", "%"), ("delay", "ms")):
                r.number("sensitivity", f"{LABELS[cc]} {column}", name, unit, None, metrics.loc[cc, column],
                         {"throughput": "Table II", "loss": "Table IV", "delay": "Table III"}[column])
    lines.append(f"| configurations in which it holds (of {len(results)}) | | | | " +
                 " | ".join(str(counts[k]) for k in keys) + " |")
    r.text("\n".join(lines))
