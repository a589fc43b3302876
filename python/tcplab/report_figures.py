"""The figures of an HTML report: metrics against a varied parameter with 95% confidence bars,
and a Pantheon-style throughput vs delay scatter per algorithm. Each returns a matplotlib Figure
(no pyplot state), so reports render headless."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Ellipse

from tcplab import plots
from tcplab.sweeps.aggregate import FEW_RUNS

# Metric -> (axis label with its unit, scale from the table's unit to the label's).
METRICS = {
    "goodput_bps": ("goodput (Mbit/s)", 1e-6),
    "rtt_p95_ms": ("95th-percentile RTT (ms)", 1.0),
    "retransmitted_segments": ("retransmitted segments", 1.0),
    "timeouts": ("retransmission timeouts", 1.0),
    "utilization": ("link utilization (%)", 100.0),
    "queue_delay_p95_ms": ("95th-percentile queueing delay (ms)", 1.0),
    "queue_drops": ("queue drops (packets)", 1.0),
    "completion_time_s": ("completion time (s)", 1.0),
}


def with_flow_labels(aggregate: pd.DataFrame, flows: pd.DataFrame, labels: Sequence[str]) -> pd.DataFrame:
    """The aggregate with each flow's ``entity`` its label at that point (``plots.flow_label``:
    "udp-3 (UDP)", "reno-1 (10 MB)"), so tables and legends name flows alike."""
    key = [*labels, "flow_id"]
    firsts = flows.drop_duplicates(key)
    names = {tuple(row[k] for k in key): plots.flow_label(row) for _, row in firsts.iterrows()}
    is_flow = aggregate["table"] == "flows"
    relabelled = aggregate.copy()
    relabelled.loc[is_flow, "entity"] = [names.get(tuple(values), entity) for values, entity in
                                         zip(aggregate.loc[is_flow, key].itertuples(index=False), aggregate.loc[is_flow, "entity"])]
    return relabelled


def metric_against_parameter(
    aggregate: pd.DataFrame, metric: str, parameter: str, order: Sequence, others: Sequence[str]
) -> Figure:
    """The mean of ``metric`` at each value of ``parameter`` (in sweep order) with its 95%
    interval as an error bar, one series per flow (by id, named by its ``entity`` at each point,
    joined by " / " where the parameter renames it: "cubic-0 / bbr-0") or link direction and per
    combination of the other parameters. Series sit side by side around each
    value so their bars do not hide each other. Points of an ordered parameter (numbers with one
    unit: buffers, rates) are joined by a line; a categorical one (algorithms, scenario files)
    gets points only, since nothing lies between two algorithms."""
    label, scale = METRICS[metric]
    rows = aggregate[aggregate["metric"] == metric]
    figure = Figure(figsize=(10, 4.2), layout="constrained")
    ax = figure.subplots()
    positions = {value: i for i, value in enumerate(order)}
    is_flows = (rows["table"] == "flows").all() and "flow_id" in rows
    if is_flows:
        # One series per flow id: its names along the parameter, in sweep order, make its label.
        series_keys = [*others, "flow_id"]
        names = rows.groupby(series_keys, sort=False)["entity"].agg(lambda n: " / ".join(dict.fromkeys(n)))
        rows = rows.drop(columns="entity").join(names, on=series_keys).assign(_order=rows["flow_id"])
    else:
        rows = rows.assign(_order=rows["entity"].map({entity: i for i, entity in enumerate(dict.fromkeys(rows["entity"]))}))
    ordered = is_ordered(order)
    group_keys = [*others, "entity"]
    groups = sorted(rows.groupby(group_keys, sort=False), key=lambda item: (item[1]["_order"].iloc[0], str(item[0])))
    width = 0.6 / max(len(groups), 1)
    for index, (key, series) in enumerate(groups):
        key = key if isinstance(key, tuple) else (key,)
        series = series.assign(_x=series[parameter].map(positions)).sort_values("_x")
        x = series["_x"].to_numpy() + (index - (len(groups) - 1) / 2) * width
        mean = series["mean"].to_numpy() * scale
        low, high = series["ci95_low"].to_numpy() * scale, series["ci95_high"].to_numpy() * scale
        # NaN intervals (one run) draw no bar; the clipped bounds keep the bars inside the domain.
        error = np.vstack([mean - low, high - mean])
        style = plots.line_style(index)
        drawn = ax.errorbar(x, mean, yerr=np.where(np.isfinite(error), error, 0), fmt="o-" if ordered else "o",
                            markersize=4, capsize=3, linewidth=1.0, color=style["color"],
                            label=", ".join(str(part) for part in key))
        # The style goes on the joining line only: dashed error bars would read as something else.
        drawn.lines[0].set_linestyle(style["linestyle"] if ordered else "None")
    ax.set_xticks(range(len(order)), [str(value) for value in order])
    ax.set_xlabel(parameter)
    ax.set_ylabel(label)
    ax.set_title(f"{label} against {parameter}\nmean over {_runs_text(rows['n'])}; bars: 95% CI, clipped to the "
                 "metric's range", fontsize="medium", loc="left")
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        entity = "flow" if is_flows else "link direction"
        figure.legend(handles, labels, loc="outside right upper", fontsize="small", title=", ".join([*others, entity]))
    return figure


def _runs_text(n: pd.Series) -> str:
    """How many runs the means rest on, and a warning when too few for a trustworthy interval."""
    low, high = int(n.min()), int(n.max())
    text = f"n = {low} runs" if low == high else f"n = {low}-{high} runs"
    return text + f" (fewer than {FEW_RUNS}: wide intervals)" if 1 < low < FEW_RUNS else text


_NUMBER_WITH_UNIT = re.compile(r"\s*-?\d+(?:\.\d+)?\s*([A-Za-z%/]*)\s*")


def is_ordered(values: Sequence) -> bool:
    """Whether a parameter's values lie on one scale: numbers, or numbers with one unit ("1BDP",
    "4BDP"); algorithms and file names are categories."""
    units = set()
    for value in values:
        if isinstance(value, bool):
            return False
        if isinstance(value, (int, float)):
            units.add("")
            continue
        match = _NUMBER_WITH_UNIT.fullmatch(str(value))
        if not match:
            return False
        units.add(match.group(1))
    return len(units) == 1


_MARKERS = ["o", "s", "^", "D"]


def throughput_delay_scatter(flows: pd.DataFrame) -> Figure:
    """Pantheon's view: each TCP flow of each run as a point (95th-percentile RTT, goodput), one
    colour per algorithm, and the one-standard-deviation ellipse of each algorithm's points.
    The delay axis is inverted, as in Pantheon, so better is up and to the right."""
    figure = Figure(figsize=(8, 5), layout="constrained")
    ax = figure.subplots()
    tcp = flows[(flows["protocol"] == "tcp") & flows["rtt_p95_ms"].notna()]
    colours = {}
    for index, (algorithm, points) in enumerate(tcp.groupby("cc", sort=True)):
        colour = plots.line_style(index)["color"]
        colours[algorithm] = colour
        # Past the palette's 10 colours a colour comes back: another marker tells them apart.
        marker = _MARKERS[(index // 10) % len(_MARKERS)]
        x = points["rtt_p95_ms"].to_numpy()
        y = points["goodput_bps"].to_numpy() / 1e6
        ax.scatter(x, y, s=18, color=colour, marker=marker, alpha=0.7, label=f"{algorithm} ({len(points)} flow runs)")
        if len(points) >= 3:
            ax.add_patch(_deviation_ellipse(x, y, colour))
    ax.invert_xaxis()
    ax.set_xlabel("95th-percentile RTT (ms), better to the right")
    ax.set_ylabel("goodput (Mbit/s)")
    ax.set_title("throughput against delay per algorithm (ellipse: one standard deviation)", fontsize="medium")
    ax.grid(True, alpha=0.3)
    if colours:
        ax.legend(fontsize="small")
    return figure


def _deviation_ellipse(x: np.ndarray, y: np.ndarray, colour: str) -> Ellipse:
    """The ellipse of the points' covariance at one standard deviation along its principal axes."""
    covariance = np.cov(x, y)
    values, vectors = np.linalg.eigh(covariance)
    values = np.clip(values, 0, None)
    angle = np.degrees(np.arctan2(vectors[1, 1], vectors[0, 1]))
    width, height = 2 * np.sqrt(values[1]), 2 * np.sqrt(values[0])
    return Ellipse((x.mean(), y.mean()), width, height, angle=angle, facecolor=colour, alpha=0.12, edgecolor=colour)
