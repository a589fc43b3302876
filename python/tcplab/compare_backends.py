"""One scenario on two back-ends, side by side: the simulator and another engine (the machine's
own kernel, ns-2 or ns-3).

The flows table has, per flow and for all flows together, goodput, the median and 95th
percentile of the smoothed RTT, retransmitted segments and timeouts, each with the other
engine's difference relative to the simulator's. Both RTT columns come from the time series (the
sender's smoothed RTT every sample interval), measured alike on every back-end: the flows
table's RTT percentiles are not (per-ACK samples in the simulator, the sampled smoothed RTT
elsewhere). The links table has, per congested link direction (drops, marks or queueing), drops,
ECN marks and the mean queueing delay. The figure overlays each flow's window and smoothed RTT:
solid the simulator, dashed the other engine.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from tcplab.api import run
from tcplab.result import Result


# Engines a scenario can be compared with, and how tables and figures name them.
ENGINE_NAMES = {"linux": "Linux", "ns2": "ns-2", "ns3": "ns-3"}
FLOW_METRICS = ("goodput_mbps", "rtt_p50_ms", "rtt_p95_ms", "retransmitted_segments", "timeouts",
                "timeouts_after_loss")
LINK_METRICS = ("queue_drops", "ecn_marks", "queue_delay_mean_ms")


def compare_backends(scenario: Any, overrides: dict | None = None, warm_up_s: float = 0.0,
                     progress: bool = False, backend: str = "linux") -> tuple[dict[str, Result], pd.DataFrame]:
    """Runs the scenario on the simulator and on ``backend``; returns the results by back-end
    and the per-flow table (``link_table`` gives the links')."""
    if backend not in ENGINE_NAMES:
        from tcplab import ScenarioError

        raise ScenarioError(f"backend: '{backend}' is not an engine to compare with; use "
                            f"{' or '.join(repr(b) for b in ENGINE_NAMES)}")
    results = {name: run(scenario, set=overrides or {}, backend=name, progress=progress) for name in ("simulator", backend)}
    return results, comparison_table(results, warm_up_s)


def _other(results: dict[str, Result]) -> str:
    return next(name for name in results if name != "simulator")


def _side_by_side(measured: dict[str, pd.DataFrame], metrics: tuple[str, ...], keep: list[str]) -> pd.DataFrame:
    other = next(name for name in measured if name != "simulator")
    table = measured["simulator"].join(measured[other], lsuffix="_simulator", rsuffix=f"_{other}")
    for column in metrics:
        table[f"{column}_difference"] = table[f"{column}_{other}"] / table[f"{column}_simulator"] - 1
    for column in keep:
        table = table.rename(columns={f"{column}_simulator": column}).drop(columns=[f"{column}_{other}"])
    order = keep + [f"{c}_{s}" for c in metrics for s in ("simulator", other, "difference")]
    return table[order].reset_index()


def comparison_table(results: dict[str, Result], warm_up_s: float = 0.0) -> pd.DataFrame:
    measured = {backend: _per_flow(result, warm_up_s) for backend, result in results.items()}
    return _side_by_side(measured, FLOW_METRICS, ["cc"])


def link_table(results: dict[str, Result]) -> pd.DataFrame:
    """Drops, marks and mean queueing delay of every link direction that dropped, marked or
    queued in either run."""
    measured = {}
    for backend, result in results.items():
        links = result.links.copy()
        links["link direction"] = links["link"] + " " + links["direction"]
        measured[backend] = links.set_index("link direction")[list(LINK_METRICS)].astype(float)
    busy = (measured["simulator"] > 0).any(axis=1) | (measured[_other(results)] > 0).any(axis=1)
    measured = {backend: frame[busy.reindex(frame.index, fill_value=False)] for backend, frame in measured.items()}
    return _side_by_side(measured, LINK_METRICS, [])


def _per_flow(result: Result, warm_up_s: float) -> pd.DataFrame:
    flows = result.flows.set_index("name")
    series = result.timeseries
    srtt = series[series["time_s"] >= warm_up_s].groupby("name")["srtt_ms"]
    frame = pd.DataFrame({
        "cc": flows["cc"],
        "goodput_mbps": flows["goodput_bps"] / 1e6,
        "rtt_p50_ms": srtt.median(),
        "rtt_p95_ms": srtt.quantile(0.95),
        "retransmitted_segments": flows["retransmitted_segments"].astype(float),
        "timeouts": flows["timeouts"].astype(float),
        "timeouts_after_loss": flows["timeouts_after_loss"].astype(float),
    }).reindex(flows.index)  # the flows table's order, not the names' alphabetical one
    everything = series[series["time_s"] >= warm_up_s]["srtt_ms"]
    frame.loc["all flows"] = ["", frame["goodput_mbps"].sum(), everything.median(), everything.quantile(0.95),
                              frame["retransmitted_segments"].sum(), _sum(frame["timeouts"]),
                              _sum(frame["timeouts_after_loss"])]
    frame.index.name = "flow"
    return frame


def _sum(column: pd.Series) -> float:
    """A total, NaN where an engine does not count the value at all."""
    return column.sum() if column.notna().all() else math.nan


def markdown_table(table: pd.DataFrame) -> str:
    other = next(c for c in table.columns if c.startswith("goodput_mbps_") and not c.endswith(("_simulator", "_difference")))
    other = other.removeprefix("goodput_mbps_")
    name = ENGINE_NAMES.get(other, other)
    header = (f"| flow | cc | goodput Mb/s simulator | {name} | diff | RTT p50 ms simulator | {name} | diff "
              f"| RTT p95 ms simulator | {name} | diff | retransmissions simulator | {name} | diff "
              f"| timeouts simulator | {name} | diff | timeouts after loss simulator | {name} | diff |")
    lines = [header, "|" + "---|" * 20]
    patterns = {"goodput_mbps": "{:.2f}", "rtt_p50_ms": "{:.1f}", "rtt_p95_ms": "{:.1f}",
                "retransmitted_segments": "{:.0f}", "timeouts": "{:.0f}", "timeouts_after_loss": "{:.0f}"}
    for row in table.to_dict(orient="records"):
        cells = [row["flow"], row["cc"]]
        for column in FLOW_METRICS:
            cells += [_format(row[f"{column}_simulator"], patterns[column]), _format(row[f"{column}_{other}"], patterns[column]),
                      _percent(row[f"{column}_difference"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown_link_table(table: pd.DataFrame, other: str) -> str:
    name = ENGINE_NAMES.get(other, other)
    lines = [f"| link direction | drops simulator | {name} | diff | ECN marks simulator | {name} | diff "
             f"| queue delay mean ms simulator | {name} | diff |", "|" + "---|" * 10]
    for row in table.to_dict(orient="records"):
        cells = [row["link direction"]]
        for column, pattern in zip(LINK_METRICS, ("{:.0f}", "{:.0f}", "{:.2f}")):
            cells += [_format(row[f"{column}_simulator"], pattern), _format(row[f"{column}_{other}"], pattern),
                      _percent(row[f"{column}_difference"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _format(value: float, pattern: str) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else pattern.format(value)


def _percent(value: float) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:+.1%}"


def overlay_figure(results: dict[str, Result]):
    """Each flow's window and smoothed RTT over time; solid the simulator, dashed the other engine."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (cwnd, rtt) = plt.subplots(2, 1, figsize=(10, 6.5), sharex=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    other = _other(results)
    for backend, style in (("simulator", "-"), (other, "--")):
        series = results[backend].timeseries
        for index, (name, rows) in enumerate(series.groupby("name", sort=False)):
            colour = colours[index % len(colours)]
            label = f"{name} ({backend})"
            cwnd.plot(rows["time_s"], rows["cwnd_bytes"] / 1e3, style, color=colour, label=label, linewidth=1)
            rtt.plot(rows["time_s"], rows["srtt_ms"], style, color=colour, linewidth=1)
    cwnd.set_ylabel("cwnd (KB)")
    rtt.set_ylabel("smoothed RTT (ms)")
    rtt.set_xlabel("time (s)")
    cwnd.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    engine = (f"Linux {results['linux'].summary.get('kernel', '')}" if other == "linux"
              else results[other].summary.get("engine", ENGINE_NAMES.get(other, other)))
    figure.suptitle(f"simulator (solid) and {engine} (dashed)")
    figure.tight_layout()
    return figure


def save(results: dict[str, Result], table: pd.DataFrame, out: Path) -> list[Path]:
    """Both runs' tables, comparison.csv (flows), links.csv, comparison.md (both tables) and
    overlay.png, into ``out``."""
    written = []
    for backend, result in results.items():
        written += result.save(out / backend)
    links = link_table(results)
    table.to_csv(out / "comparison.csv", index=False)
    links.to_csv(out / "links.csv", index=False)
    (out / "comparison.md").write_text(
        markdown_table(table) + "\n\n" + markdown_link_table(links, _other(results)) + "\n", encoding="utf-8")
    figure = overlay_figure(results)
    figure.savefig(out / "overlay.png", dpi=110)
    return written + [out / "comparison.csv", out / "links.csv", out / "comparison.md", out / "overlay.png"]
