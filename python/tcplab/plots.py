"""Plots of a run: cwnd, RTT, throughput and queue length over time, one line per flow.

Figures are built on ``matplotlib.figure.Figure`` (no pyplot state), so they render headless and
show inline in notebooks. Plotting is a function of a run's tables: this module imports nothing
from the rest of tcplab (``Result.plot`` calls it, not the other way round).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from matplotlib.figure import Figure

if TYPE_CHECKING:
    import pandas as pd


class RunTables(Protocol):
    """What the plots read from a run; ``tcplab.Result`` is one."""

    summary: dict[str, Any]
    flows: pd.DataFrame
    timeseries: pd.DataFrame
    queues: pd.DataFrame

    def bottleneck(self) -> pd.Series: ...

# More lines than this and a legend hides the data; the title says how many flows instead.
_MAX_LEGEND_ENTRIES = 12


def _flow_lines(ax, result: RunTables, column: str, scale, ylabel: str) -> None:
    series = result.timeseries
    payload = dict(zip(result.flows["flow_id"], result.flows["packet_payload_bytes"]))
    for flow_id, rows in series.groupby("flow_id", sort=True):
        values = scale(rows[column], payload[flow_id])
        if values.notna().any():
            ax.plot(rows["time_s"], values, linewidth=1.0, label=str(rows["name"].iloc[0]))
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if 0 < len(labels) <= _MAX_LEGEND_ENTRIES:
        ax.legend(loc="upper right", fontsize="small", ncol=min(len(labels), 4))


def _cwnd(ax, result: RunTables) -> None:
    _flow_lines(ax, result, "cwnd_bytes", lambda v, mss: v / mss, "cwnd (segments)")


def _rtt(ax, result: RunTables) -> None:
    _flow_lines(ax, result, "srtt_ms", lambda v, _: v, "smoothed RTT (ms)")


def _throughput(ax, result: RunTables) -> None:
    _flow_lines(ax, result, "throughput_bps", lambda v, _: v / 1e6, "goodput (Mbit/s)")


def _queue(ax, result: RunTables) -> None:
    link = result.bottleneck()
    queues = result.queues
    rows = queues[(queues["link"] == link["link"]) & (queues["direction"] == link["direction"])]
    ax.plot(rows["time_s"], rows["queue_packets"], color="black", linewidth=1.0)
    ax.set_ylabel("queue (packets)")
    ax.set_title(f"{link['link']} ({link['direction']}), buffer {link['buffer']}", fontsize="small")
    ax.grid(True, alpha=0.3)


_PANELS = {"cwnd": _cwnd, "rtt": _rtt, "throughput": _throughput, "queue": _queue}


def overview(result: RunTables) -> Figure:
    """All four panels stacked with a shared time axis."""
    figure = Figure(figsize=(10, 11), layout="constrained")
    axes = figure.subplots(len(_PANELS), 1, sharex=True)
    for ax, draw in zip(axes, _PANELS.values()):
        draw(ax, result)
    axes[-1].set_xlabel("time (s)")
    name = result.summary.get("scenario") or "scenario"
    flows = len(result.flows)
    figure.suptitle(f"{name}: {flows} flow{'s' if flows != 1 else ''}, seed {result.summary['seed']}")
    return figure


def save_all(result: RunTables, directory: str | Path) -> list[Path]:
    """Writes overview.png and one PNG per panel (cwnd, rtt, throughput, queue)."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    path = out / "overview.png"
    overview(result).savefig(path, dpi=100)
    written.append(path)
    for name, draw in _PANELS.items():
        figure = Figure(figsize=(10, 4), layout="constrained")
        ax = figure.subplots()
        draw(ax, result)
        ax.set_xlabel("time (s)")
        path = out / f"{name}.png"
        figure.savefig(path, dpi=100)
        written.append(path)
    return written
