"""Plots of a run: cwnd, RTT, goodput and the queue of every congested link over time, and CDFs
of RTT and flow completion time.

Figures are built on ``matplotlib.figure.Figure`` (no pyplot state), so they render headless and
show inline in notebooks. Plotting is a function of a run's tables: this module imports nothing
from the rest of tcplab (``Result.plot`` calls it, not the other way round).

Lines are one per flow, in flow id order, with one legend outside the panels; past the palette's
10 colours the lines change style, and above ``MAX_FLOW_LINES_IN_LEGEND`` flows they are coloured
by algorithm, with one legend entry per algorithm. Reference lines show each drawn link's
capacity (over time for a trace link), the smallest base RTT and each buffer limit, in the axis'
unit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
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

    def trace_capacity(self) -> dict[tuple[str, str], dict[str, Any]]: ...


# More flows than this and lines are coloured by algorithm: a legend per flow would hide the data.
MAX_FLOW_LINES_IN_LEGEND = 12
# A link direction busier than this is congested even without a drop or a mark: its queue matters.
CONGESTED_UTILIZATION = 0.9
# The default goodput smoothing: a trailing mean over max(1 s, 10 samples). One sample is the
# bytes delivered in order in one interval, so after a repair the whole repaired stretch lands in
# one sample (several times the capacity); a second of samples spreads it back over the time it
# took, and 10 samples keep it a mean when sampling is slower than 100 ms.
DEFAULT_SMOOTH_S = 1.0
DEFAULT_SMOOTH_SAMPLES = 10
_PALETTE = 10  # matplotlib's C0 ... C9
# After the palette is used up, the next flows repeat its colours with another line style.
_LINE_STYLES = ["-", "--", ":", "-."]
_REFERENCE = {"color": "black", "linestyle": "--", "linewidth": 0.9, "alpha": 0.7}


def flow_label(flow: Any) -> str:
    """A flow's name in every table and figure: its name, "(UDP)" for UDP, its size for a finite
    transfer: "udp-3 (UDP)", "cubic-1 (10 MB)"."""
    marks = []
    if flow["protocol"] == "udp":
        marks.append("UDP")
    size = flow.get("size_bytes")
    if size is not None and size == size:
        marks.append(format_bytes(size))
    return f"{flow['name']} ({', '.join(marks)})" if marks else str(flow["name"])


def format_bytes(size: float) -> str:
    """Decimal units as scenarios write them: 100 KB, 10 MB, 1.5 GB."""
    for unit, scale in [("GB", 1e9), ("MB", 1e6), ("KB", 1e3)]:
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size:g} B"


def line_style(index: int) -> dict[str, str]:
    """Colour and line style of the index-th line: the palette's colours, then the same colours
    dashed, dotted ..., so no two of the first 40 lines look alike."""
    return {"color": f"C{index % _PALETTE}", "linestyle": _LINE_STYLES[(index // _PALETTE) % len(_LINE_STYLES)]}


def link_label(link: Any) -> str:
    return f"{link['link']} {link['direction']}"


def congested(links: pd.DataFrame) -> pd.Series:
    """Which link directions were congested: they dropped or marked packets, or were busier than
    ``CONGESTED_UTILIZATION``."""
    drops = links["queue_drops"] + links["aqm_drops"].fillna(0) + links["ecn_marks"].fillna(0)
    return (drops > 0) | (links["utilization"] > CONGESTED_UTILIZATION)


def shown_links(result: RunTables, names: Sequence[str] | None = None, varied: Sequence[str] = ()) -> pd.DataFrame:
    """The link directions whose queues and capacities the plots draw, in the links table's order.

    ``names`` (``--links``) chooses the links; otherwise every congested direction and the links
    a sweep varies (``varied``). Of a named link, its congested directions, or the busier one when
    neither was congested (the reverse direction of a data path only carries ACKs). With nothing
    congested and nothing named, the run's bottleneck."""
    links = result.links
    unknown = [name for name in names or () if name not in set(links["link"])]
    if unknown:
        raise ValueError(f"links: no link named {', '.join(map(repr, unknown))}; the links are "
                         + ", ".join(dict.fromkeys(links["link"])))
    wanted = list(names) if names else list(varied)
    rows = congested(links) & (links["link"].isin(wanted) if names else True)
    for name in wanted:
        of_link = links["link"] == name
        if of_link.any() and not (rows & of_link).any():
            rows |= links.index == links.loc[of_link, "utilization"].idxmax()
    if not rows.any():
        rows = links.index == result.bottleneck().name
    return links[rows]


def smoothing_window(result: RunTables, smooth_s: float | None) -> tuple[int, str]:
    """(samples in the goodput's trailing mean, how the axis label says it). ``smooth_s`` None is
    the default, max(1 s, 10 samples); 0 draws goodput as sampled."""
    times = np.unique(result.timeseries["time_s"].to_numpy())
    interval = float(np.min(np.diff(times))) if len(times) >= 2 else 0.0
    if smooth_s == 0 or interval <= 0:
        return 1, f"as sampled every {interval * 1000:g} ms" if interval > 0 else "as sampled"
    if smooth_s is None:
        window = max(DEFAULT_SMOOTH_SAMPLES, round(DEFAULT_SMOOTH_S / interval))
    else:
        window = max(1, round(smooth_s / interval))
    if window == 1:
        return 1, f"as sampled every {interval * 1000:g} ms"
    return window, f"trailing mean over {window * interval:g} s"


class _Panels:
    """Draws the panels of one run, with consistent colours and one shared legend."""

    def __init__(self, result: RunTables, smooth_s: float | None, links: Sequence[str] | None = None,
                 varied: Sequence[str] = ()):
        self.result = result
        self.smooth_s = smooth_s
        self.links = shown_links(result, links, varied)
        flows = result.flows.sort_values("flow_id")
        self.by_algorithm = len(flows) > MAX_FLOW_LINES_IN_LEGEND
        algorithm = flows["cc"].where(flows["protocol"] == "tcp", flows["protocol"])
        self.algorithm = dict(zip(flows["flow_id"], algorithm))
        counts = algorithm.value_counts()
        self.label = {row["flow_id"]: flow_label(row) for _, row in flows.iterrows()}
        if self.by_algorithm:
            self.label = {flow: f"{name} ({counts[name]} flow{'s' if counts[name] != 1 else ''})" for flow, name in self.algorithm.items()}
            groups = sorted(counts.index)
            style = {group: line_style(index) for index, group in enumerate(groups)}
            self.style = {flow: style[name] for flow, name in self.algorithm.items()}
        else:
            self.style = {flow: line_style(index) for index, flow in enumerate(flows["flow_id"])}
        self.legend: dict[str, Any] = {}

    def _flow_lines(self, ax, column: str, scale, ylabel: str, window: int = 1) -> None:
        series = self.result.timeseries
        payload = dict(zip(self.result.flows["flow_id"], self.result.flows["packet_payload_bytes"]))
        for flow_id, rows in series.groupby("flow_id", sort=True):
            values = scale(rows[column], payload[flow_id])
            if not values.notna().any():
                continue
            if window > 1:
                values = values.rolling(window, min_periods=1).mean()
            (line,) = ax.plot(rows["time_s"], values, linewidth=1.0 if not self.by_algorithm else 0.7, **self.style[flow_id])
            self.legend.setdefault(self.label[flow_id], line)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)

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
        window, how = smoothing_window(self.result, self.smooth_s)
        self._flow_lines(ax, "throughput_bps", lambda v, _: v / 1e6, f"goodput (Mbit/s),\n{how}", window)
        traces = self.result.trace_capacity() if hasattr(self.result, "trace_capacity") else {}
        for _, link in self.links.iterrows():
            trace = traces.get((link["link"], link["direction"]))
            if trace is None:
                capacity = link["rate_bps"] / 1e6
                ax.axhline(capacity, **_REFERENCE)
                ax.annotate(f"{link_label(link)} capacity {capacity:g} Mbit/s", (0.01, capacity),
                            xycoords=("axes fraction", "data"), va="bottom", fontsize="small")
            elif trace["mbit_s"] is not None:
                # The capacity a trace offers changes over time: drawn as it changes, not as the
                # link's nominal rate (which only sizes BDP buffers).
                ax.step(trace["starts_s"], trace["mbit_s"], where="post", color="black", linewidth=0.7, alpha=0.5,
                        label=f"{link_label(link)} capacity")
                ax.annotate(f"{link_label(link)} capacity: trace, 100 ms bins, mean {trace['mean_mbit_s']:.3g} Mbit/s",
                            (0.01, 0.97), xycoords="axes fraction", va="top", fontsize="small")

    def queue(self, ax, link: pd.Series) -> None:
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
        drops = link["queue_drops"] + link["aqm_drops"]
        ax.set_title(f"queue of {link_label(link)}, buffer {link['buffer']}: {link['utilization']:.0%} busy, "
                     f"{_count(drops)} drops, {_count(link['ecn_marks'])} marks", fontsize="small")
        ax.grid(True, alpha=0.3)

    def queue_panels(self, axes) -> None:
        for ax, (_, link) in zip(axes, self.links.iterrows()):
            self.queue(ax, link)

    def add_legend(self, figure: Figure) -> None:
        if self.legend:
            figure.legend(list(self.legend.values()), list(self.legend.keys()), loc="outside right upper", fontsize="small",
                          title="algorithm" if self.by_algorithm else "flow")


PANELS = {
    "cwnd": "congestion window per flow",
    "rtt": "smoothed RTT per flow",
    "throughput": "goodput per flow",
    "queue": "queues of the congested links",
}


def _buffer_limit(buffer: str) -> tuple[int | None, int | None]:
    """(packets, bytes) of a resolved buffer description: "62p" or "187500B (1BDP)"."""
    packets = re.fullmatch(r"(\d+)p", buffer)
    if packets:
        return int(packets.group(1)), None
    size = re.match(r"(\d+)B\b", buffer)
    return None, int(size.group(1)) if size else None


def _count(value: float) -> str:
    """A counter as a whole number; "?" where a back-end does not count it (NaN)."""
    return "?" if value != value else f"{int(value)}"


def _name(result: RunTables) -> str:
    return result.summary.get("scenario") or "scenario"


def overview(result: RunTables, smooth_s: float | None = None, links: Sequence[str] | None = None,
             varied: Sequence[str] = ()) -> Figure:
    """cwnd, RTT, goodput and one queue panel per shown link direction (``shown_links``), stacked
    with a shared time axis, one legend to their right.

    ``smooth_s``: goodput as a trailing mean over that many seconds; None: max(1 s, 10 samples);
    0: as sampled. ``links``: the links whose queues and capacities are drawn (default: the
    congested ones and those named in ``varied``).
    """
    panels = _Panels(result, smooth_s, links, varied)
    queues = len(panels.links)
    figure = Figure(figsize=(11, 8.25 + 2.75 * queues), layout="constrained")
    axes = figure.subplots(3 + queues, 1, sharex=True)
    for ax, draw in zip(axes, [panels.cwnd, panels.rtt, panels.throughput]):
        draw(ax)
    panels.queue_panels(axes[3:])
    axes[-1].set_xlabel("time (s)")
    panels.add_legend(figure)
    flows = len(result.flows)
    figure.suptitle(f"{_name(result)}: {flows} flow{'s' if flows != 1 else ''}, seed {result.summary['seed']}")
    return figure


def describe_overview(result: RunTables, smooth_s: float | None = None, links: Sequence[str] | None = None,
                      varied: Sequence[str] = ()) -> str:
    """What ``overview`` draws, in words: the alt text of its image."""
    shown = shown_links(result, links, varied)
    _, how = smoothing_window(result, smooth_s)
    table = result.flows.sort_values("flow_id")
    if len(table) > MAX_FLOW_LINES_IN_LEGEND:  # as the legend does: by algorithm, counted
        counts = table["cc"].where(table["protocol"] == "tcp", table["protocol"]).value_counts(sort=False)
        flows = f"{len(table)} flows (" + ", ".join(f"{count} {name}" for name, count in counts.items()) + ")"
    else:
        flows = ", ".join(flow_label(row) for _, row in table.iterrows())
    return (f"{_name(result)} over time: congestion window, smoothed RTT and goodput ({how}) of "
            f"{flows}; queue of {', '.join(link_label(row) for _, row in shown.iterrows())}")


def panel(result: RunTables, name: str, smooth_s: float | None = None, links: Sequence[str] | None = None) -> Figure:
    """One panel of the overview ("cwnd", "rtt", "throughput" or "queue": one axis per shown link
    direction) as a titled figure."""
    panels = _Panels(result, smooth_s, links)
    rows = len(panels.links) if name == "queue" else 1
    figure = Figure(figsize=(11, 4.5 if rows == 1 else 2.75 * rows + 1), layout="constrained")
    axes = figure.subplots(rows, 1, sharex=True, squeeze=False)[:, 0]
    if name == "queue":
        panels.queue_panels(axes)
    else:
        getattr(panels, name)(axes[0])
    axes[-1].set_xlabel("time (s)")
    figure.suptitle(f"{_name(result)}: {PANELS[name]}")
    panels.add_legend(figure)
    return figure


def rtt_cdf(result: RunTables) -> Figure:
    """Per flow, the distribution of its smoothed RTT as sampled in the time series."""
    figure = Figure(figsize=(10, 4.5), layout="constrained")
    ax = figure.subplots()
    panels = _Panels(result, 0)
    for flow_id, rows in result.timeseries.groupby("flow_id", sort=True):
        values = np.sort(rows["srtt_ms"].dropna().to_numpy())
        if len(values):
            (line,) = ax.step(values, np.arange(1, len(values) + 1) / len(values), where="post", **panels.style[flow_id])
            panels.legend.setdefault(panels.label[flow_id], line)
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


def save_all(result: RunTables, directory: str | Path, smooth_s: float | None = None,
             links: Sequence[str] | None = None) -> list[Path]:
    """Writes overview.png, one PNG per panel (cwnd, rtt, throughput, queue), rtt_cdf.png and,
    when some flow completed, fct_cdf.png. ``smooth_s`` and ``links`` as for ``overview``."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    path = out / "overview.png"
    overview(result, smooth_s, links).savefig(path, dpi=100)
    written.append(path)
    for name in PANELS:
        path = out / f"{name}.png"
        panel(result, name, smooth_s, links).savefig(path, dpi=100)
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
