"""Plots of a run: cwnd, RTT, throughput and queue length over time, and CDFs of RTT and flow
completion time.

Figures are built on ``matplotlib.figure.Figure`` (no pyplot state), so they render headless and
show inline in notebooks. Plotting is a function of a run's tables: this module imports nothing
from the rest of tcplab (``Result.plot`` calls it, not the other way round).

Lines are one per flow with one legend outside the panels; above ``MAX_FLOW_LINES_IN_LEGEND``
flows they are coloured by algorithm, with one legend entry per algorithm. Reference lines show
the bottleneck's capacity, the smallest base RTT and the buffer limit, in the axis' unit.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from matplotlib.figure import Figure

if TYPE_CHECKING:
    import pandas as pd


class RunTables(Protocol):
    """What the plots read from a run; ``tcplab.Result`` is one."""

    summary: dict[str, Any]
    flows: pd.DataFrame
    links: pd.DataFrame
    timeseries: pd.DataFrame
    queues: pd.DataFrame

    def bottleneck(self) -> pd.Series: ...


# More flows than this and lines are coloured by algorithm: a legend per flow would hide the data.
MAX_FLOW_LINES_IN_LEGEND = 12
_REFERENCE = {"color": "black", "linestyle": "--", "linewidth": 0.9, "alpha": 0.7}


class _Panels:
    """Draws the panels of one run, with consistent colours and one shared legend."""

    def __init__(self, result: RunTables, smooth_s: float | None):
        self.result = result
        self.smooth_s = smooth_s
        flows = result.flows
        self.by_algorithm = len(flows) > MAX_FLOW_LINES_IN_LEGEND
        algorithm = flows["cc"].where(flows["protocol"] == "tcp", flows["protocol"])
        self.algorithm = dict(zip(flows["flow_id"], algorithm))
        counts = algorithm.value_counts()
        self.group_label = {name: f"{name} ({counts[name]} flow{'s' if counts[name] != 1 else ''})" for name in counts.index}
        groups = sorted(counts.index) if self.by_algorithm else list(flows["flow_id"])
        self.colour = {group: f"C{index % 10}" for index, group in enumerate(groups)}
        self.legend: dict[str, Any] = {}

    def _flow_lines(self, ax, column: str, scale, ylabel: str, smooth: bool = False) -> None:
        series = self.result.timeseries
        payload = dict(zip(self.result.flows["flow_id"], self.result.flows["packet_payload_bytes"]))
        window = self._smoothing_window() if smooth else 1
        for flow_id, rows in series.groupby("flow_id", sort=True):
            values = scale(rows[column], payload[flow_id])
            if not values.notna().any():
                continue
            if window > 1:
                values = values.rolling(window, min_periods=1).mean()
            group = self.algorithm[flow_id] if self.by_algorithm else flow_id
            label = self.group_label[group] if self.by_algorithm else str(rows["name"].iloc[0])
            (line,) = ax.plot(rows["time_s"], values, linewidth=1.0 if not self.by_algorithm else 0.7, color=self.colour[group])
            self.legend.setdefault(label, line)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)

    def _smoothing_window(self) -> int:
        """Samples in the trailing mean: smooth_s over the sampling interval."""
        times = np.unique(self.result.timeseries["time_s"].to_numpy())
        if not self.smooth_s or len(times) < 2:
            return 1
        return max(1, round(self.smooth_s / float(np.min(np.diff(times)))))

    def cwnd(self, ax) -> None:
        self._flow_lines(ax, "cwnd_bytes", lambda v, mss: v / mss, "cwnd (segments)")

    def rtt(self, ax) -> None:
        self._flow_lines(ax, "srtt_ms", lambda v, _: v, "smoothed RTT (ms)")
        base = self.result.flows["base_rtt_ms"].min()
        if base == base:
            ax.axhline(base, **_REFERENCE)
            ax.annotate(f"smallest base RTT {base:.1f} ms", (0.01, base), xycoords=("axes fraction", "data"),
                        va="bottom", fontsize="small")

    def throughput(self, ax) -> None:
        smoothed = f", trailing mean over {self.smooth_s:g} s" if self.smooth_s else ""
        self._flow_lines(ax, "throughput_bps", lambda v, _: v / 1e6, f"goodput (Mbit/s){smoothed}", smooth=True)
        link = self.result.bottleneck()
        capacity = link["rate_bps"] / 1e6
        ax.axhline(capacity, **_REFERENCE)
        ax.annotate(f"{link['link']} capacity {capacity:g} Mbit/s", (0.01, capacity), xycoords=("axes fraction", "data"),
                    va="bottom", fontsize="small")

    def queue(self, ax) -> None:
        link = self.result.bottleneck()
        queues = self.result.queues
        rows = queues[(queues["link"] == link["link"]) & (queues["direction"] == link["direction"])]
        limit_packets, limit_bytes = _buffer_limit(str(link["buffer"]))
        if limit_bytes is not None:
            # A byte limit: the queue in kilobytes, so the limit line is in the same unit.
            ax.plot(rows["time_s"], rows["queue_bytes"] / 1000, color="black", linewidth=1.0)
            ax.set_ylabel("queue (KB)")
            limit, text = limit_bytes / 1000, f"buffer {limit_bytes / 1000:g} KB"
        else:
            ax.plot(rows["time_s"], rows["queue_packets"], color="black", linewidth=1.0)
            ax.set_ylabel("queue (packets)")
            limit, text = limit_packets, f"buffer {limit_packets} packets"
        if limit is not None:
            ax.axhline(limit, color="red", linestyle="--", linewidth=0.9, alpha=0.7)
            ax.annotate(text, (0.01, limit), xycoords=("axes fraction", "data"), va="top", fontsize="small", color="red")
        ax.set_title(f"{link['link']} ({link['direction']}), buffer {link['buffer']}", fontsize="small")
        ax.grid(True, alpha=0.3)

    def add_legend(self, figure: Figure) -> None:
        if self.legend:
            figure.legend(list(self.legend.values()), list(self.legend.keys()), loc="outside right upper", fontsize="small",
                          title="algorithm" if self.by_algorithm else "flow")


PANELS = {
    "cwnd": "congestion window per flow",
    "rtt": "smoothed RTT per flow",
    "throughput": "goodput per flow",
    "queue": "bottleneck queue",
}


def _buffer_limit(buffer: str) -> tuple[int | None, int | None]:
    """(packets, bytes) of a resolved buffer description: "62p" or "187500B (1BDP)"."""
    packets = re.fullmatch(r"(\d+)p", buffer)
    if packets:
        return int(packets.group(1)), None
    size = re.match(r"(\d+)B\b", buffer)
    return None, int(size.group(1)) if size else None


def _name(result: RunTables) -> str:
    return result.summary.get("scenario") or "scenario"


def overview(result: RunTables, smooth_s: float | None = None) -> Figure:
    """All four panels stacked with a shared time axis, one legend to their right.

    ``smooth_s``: goodput as a trailing mean over that many seconds (default: as sampled).
    """
    panels = _Panels(result, smooth_s)
    figure = Figure(figsize=(11, 11), layout="constrained")
    axes = figure.subplots(4, 1, sharex=True)
    for ax, draw in zip(axes, [panels.cwnd, panels.rtt, panels.throughput, panels.queue]):
        draw(ax)
    axes[-1].set_xlabel("time (s)")
    panels.add_legend(figure)
    flows = len(result.flows)
    figure.suptitle(f"{_name(result)}: {flows} flow{'s' if flows != 1 else ''}, seed {result.summary['seed']}")
    return figure


def panel(result: RunTables, name: str, smooth_s: float | None = None) -> Figure:
    """One panel of the overview ("cwnd", "rtt", "throughput" or "queue") as a titled figure."""
    panels = _Panels(result, smooth_s)
    figure = Figure(figsize=(11, 4.5), layout="constrained")
    ax = figure.subplots()
    getattr(panels, name)(ax)
    ax.set_xlabel("time (s)")
    figure.suptitle(f"{_name(result)}: {PANELS[name]}")
    panels.add_legend(figure)
    return figure


def rtt_cdf(result: RunTables) -> Figure:
    """Per flow, the distribution of its smoothed RTT as sampled in the time series."""
    figure = Figure(figsize=(10, 4.5), layout="constrained")
    ax = figure.subplots()
    panels = _Panels(result, None)
    for flow_id, rows in result.timeseries.groupby("flow_id", sort=True):
        values = np.sort(rows["srtt_ms"].dropna().to_numpy())
        if len(values):
            group = panels.algorithm[flow_id] if panels.by_algorithm else flow_id
            label = panels.group_label[group] if panels.by_algorithm else str(rows["name"].iloc[0])
            (line,) = ax.step(values, np.arange(1, len(values) + 1) / len(values), where="post", color=panels.colour[group])
            panels.legend.setdefault(label, line)
    ax.set_xlabel("smoothed RTT at each sample (ms)")
    ax.set_ylabel("fraction of samples")
    ax.set_title(f"{_name(result)}: CDF of the sampled smoothed RTT (not of per-ACK samples)")
    ax.grid(True, alpha=0.3)
    panels.add_legend(figure)
    return figure


def completion_time_cdf(result: RunTables) -> Figure | None:
    """The distribution of finite flows' completion times; None when no flow completed."""
    times = np.sort(result.flows["completion_time_s"].dropna().to_numpy())
    if len(times) == 0:
        return None
    figure = Figure(figsize=(10, 4.5), layout="constrained")
    ax = figure.subplots()
    ax.step(np.concatenate([[0.0], times]), np.arange(len(times) + 1) / len(times), where="post", color="C0")
    ax.set_xlabel("flow completion time (s)")
    ax.set_ylabel("fraction of completed flows")
    ax.set_title(f"{_name(result)}: CDF of completion times ({len(times)} flows completed)")
    ax.grid(True, alpha=0.3)
    return figure


def save_all(result: RunTables, directory: str | Path, smooth_s: float | None = None) -> list[Path]:
    """Writes overview.png, one PNG per panel (cwnd, rtt, throughput, queue), rtt_cdf.png and,
    when some flow completed, fct_cdf.png."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    path = out / "overview.png"
    overview(result, smooth_s).savefig(path, dpi=100)
    written.append(path)
    for name in PANELS:
        path = out / f"{name}.png"
        panel(result, name, smooth_s).savefig(path, dpi=100)
        written.append(path)
    path = out / "rtt_cdf.png"
    rtt_cdf(result).savefig(path, dpi=100)
    written.append(path)
    completion = completion_time_cdf(result)
    if completion is not None:
        path = out / "fct_cdf.png"
        completion.savefig(path, dpi=100)
        written.append(path)
    return written
