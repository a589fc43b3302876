"""The Compound TCP comparison (papers/compound-tcp-comparison.txt): Reno, NewReno, BIC, CUBIC,
Vegas, Veno and Compound TCP on a three-router chain with UDP cross traffic (Fig. 1, Table I);
throughput, one-way delay and loss ratio (Tables II-IV), cwnd and per-second throughput (Figs. 2-3).
The paper leaves buffer, packet size, window limit, UDP rate and flow placement unstated, so the
report sweeps each and shows how the ranking moves. Every criterion below was written before the
runs."""

from __future__ import annotations

import pandas as pd

from tcplab.reproduce.context import Reproduction, verdict

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
    "window 10000 p, CUBIC beta 0.8": UNLIMITED,
}
# Configuration -> algorithm -> its parameters: CUBIC's multiplicative decrease was 819/1024 in the
# early 2.6 kernels' modules (CUBIC 2.0/2.1, the era of ns-2's Linux agent); later ones use 717/1024.
ALGORITHM_PARAMS = {"window 10000 p, CUBIC beta 0.8": {"cubic": {"beta": 0.8}}}
QUICK = [PRIMARY, "window 10000 p", "window 10000 p, UDP 500 Mbit/s"]


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
(100 packets) and CUBIC's decrease factor (0.8), both as the Linux modules of ns-2's time had them. ns-2 runs are deterministic and
so are these: one run per point. {'Quick form: ' + ', '.join(QUICK) + ', 10 s each.' if r.quick else ''}
""")
    configurations = QUICK if r.quick else list(CONFIGURATIONS)
    results = {name: _run_configuration(r, index, name) for index, name in enumerate(configurations)}
    primary = results[PRIMARY][0]
    _tables(r, primary)
    _figures(r, {name: results[name][1] for name in (PRIMARY, "window 10000 p")})
    _claims(r, primary)
    _sensitivity(r, {name: metrics for name, (metrics, _) in results.items()})


def _run_configuration(r: Reproduction, index: int, name: str) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Every algorithm in one configuration: its metrics, and its tables for the figures. Each of
    ns-2's agents (Reno, NewReno, the Linux agent with SACK) is a sweep of its own."""
    overrides = dict(CONFIGURATIONS[name])
    if r.quick:
        overrides["simulation.duration"] = "10s"
    groups = {"reno": (["reno"], {"tcp.recovery": "reno"}), "newreno": (["newreno"], {"tcp.recovery": "newreno"}),
              "linux": (list(ALGORITHMS[2:]), {"tcp.recovery": "sack"})}
    for cc, params in ALGORITHM_PARAMS.get(name, {}).items():
        groups["linux"][0].remove(cc)
        groups[cc] = ([cc], {"tcp.recovery": "sack", **{f"flows.{flow}.params.{key}": value
                                                         for flow in (0, 1) for key, value in params.items()}})
    sweeps = [r.sweep(f"config-{index}-{group}", "chain.toml", {"algorithm": (["flows.0.cc", "flows.1.cc"], ccs)},
                      r.runs_or(1, 1), {**overrides, **extra}) for group, (ccs, extra) in groups.items()]
    tables = {table: pd.concat([getattr(sweep, table) for sweep in sweeps])
              for table in ("flows", "links", "timeseries", "queues")}
    return _metrics(tables["flows"], tables["links"]), tables


def _metrics(flows: pd.DataFrame, links: pd.DataFrame) -> pd.DataFrame:
    """Per algorithm: R2-R3 throughput (Mbit/s), R1 flows' one-way delay (ms), TCP loss ratio (%)."""
    hop = links[(links["link"] == "R2-R3") & (links["direction"] == "forward")]
    throughput = hop.groupby("algorithm")["throughput_bps"].mean() / 1e6
    tcp = flows[flows["protocol"] == "tcp"]
    delay = tcp[tcp["name"].str.startswith("r1")].groupby("algorithm")["one_way_delay_mean_ms"].mean()
    totals = tcp.groupby("algorithm")[["packets_lost", "packets_sent"]].sum()
    loss = 100 * totals["packets_lost"] / totals["packets_sent"]
    return pd.DataFrame({"throughput": throughput, "delay": delay, "loss": loss}).reindex(list(ALGORITHMS))


def _tables(r: Reproduction, primary: pd.DataFrame) -> None:
    for experiment, column, unit, published, source in [
        ("throughput", "throughput", "Mbit/s", THROUGHPUT, "Table II"),
        ("end-to-end delay", "delay", "ms", DELAY, "Table III"),
        ("packet loss ratio", "loss", "%", LOSS, "Table IV"),
    ]:
        r.text(f"## {experiment.capitalize()} ({source}), primary configuration")
        for cc in ALGORITHMS:
            r.number(experiment, LABELS[cc], PRIMARY, unit, published[cc], primary.loc[cc, column], source)
        r.numbers_table(experiment)


def _figures(r: Reproduction, tables: dict[str, dict[str, pd.DataFrame]]) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 6.5), sharex=True)
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
    axes[0][1].legend(fontsize=7)
    fig.tight_layout()
    r.figure("cwnd-and-throughput", fig, "cwnd of one flow from R1 (the paper's Fig. 2) and the R2-R3 throughput "
             "every second (Fig. 3), with ns-2's 20-packet window and with windows that do not limit")


def _extremes(values: pd.Series, unit: str, digits: int) -> str:
    """The lowest and highest algorithm, or that they tie (equal to a millionth)."""
    low, high = values.idxmin(), values.idxmax()
    if values[high] - values[low] <= 1e-6 * abs(values[high]):
        return f"all seven equal ({values[high]:.{digits}f} {unit}): no ranking"
    return (f"lowest {LABELS[low]} ({values[low]:.{digits}f} {unit}), highest {LABELS[high]} "
            f"({values[high]:.{digits}f} {unit})")


def _claims(r: Reproduction, primary: pd.DataFrame) -> None:
    e = "primary configuration"
    throughput, delay, loss = primary["throughput"], primary["delay"], primary["loss"]
    r.claim(e, "CUBIC achieves the highest average throughput and Vegas the lowest (Table II).",
            verdict([_strict_extreme(throughput, "cubic", highest=True),
                     _strict_extreme(throughput, "vegas", highest=False)]),
            _extremes(throughput, "Mbit/s", 2) + ".")
    r.claim(e, "Veno has the lowest average end-to-end delay and BIC the highest (Table III).",
            verdict([_strict_extreme(delay, "veno", highest=False), _strict_extreme(delay, "bic", highest=True)]),
            _extremes(delay, "ms", 4) + ".")
    r.claim(e, "Vegas has the lowest packet loss ratio (Table IV).",
            verdict([_strict_extreme(loss, "vegas", highest=False)]),
            "loss ratios: " + ", ".join(f"{LABELS[cc]} {loss[cc]:.4f}%" for cc in ALGORITHMS) + ".")
    spread = delay.max() - delay.min()
    r.claim(e, "Every algorithm's average delay is the 44 ms propagation delay plus a few microseconds (Table III: "
            "44.0298 to 44.0326 ms).", verdict([bool(((delay - 44.0).abs() < 0.1).all()), spread < 0.01]),
            f"{delay.min():.4f} to {delay.max():.4f} ms (criteria: within 0.1 ms of 44 ms; spread below 10 "
            "microseconds).")


def _strict_extreme(values: pd.Series, cc: str, highest: bool) -> bool:
    """`cc` alone has the highest (or lowest) value."""
    others = values.drop(cc)
    return bool(values[cc] > others.max()) if highest else bool(values[cc] < others.min())


def _sensitivity(r: Reproduction, results: dict[str, pd.DataFrame]) -> None:
    r.text("## How the ranking moves with the unstated choices\n\nPer configuration: the algorithms by R2-R3 "
           "throughput, highest first, and which of the paper's three orderings hold (CUBIC highest and Vegas "
           "lowest in throughput; Veno lowest in delay; Vegas lowest in loss).")
    lines = ["| configuration | throughput ranking (Mbit/s) | CUBIC top, Vegas last | Veno least delay | "
             "Vegas least loss |", "|---|---|---|---|---|"]
    for name, metrics in results.items():
        ranking = metrics["throughput"].sort_values(ascending=False)
        order = ", ".join(f"{LABELS[cc]} {value:.1f}" for cc, value in ranking.items())
        holds = [_strict_extreme(metrics["throughput"], "cubic", highest=True)
                 and _strict_extreme(metrics["throughput"], "vegas", highest=False),
                 _strict_extreme(metrics["delay"], "veno", highest=False),
                 _strict_extreme(metrics["loss"], "vegas", highest=False)]
        lines.append(f"| {name} | {order} | " + " | ".join("yes" if h else "no" for h in holds) + " |")
        for cc in ALGORITHMS:
            r.number("sensitivity", f"{LABELS[cc]} throughput", name, "Mbit/s", None, metrics.loc[cc, "throughput"],
                     "Table II")
    r.text("\n".join(lines))
