"""The figures of an HTML report: metrics against a varied parameter with 95% confidence bands,
and a Pantheon-style throughput vs delay scatter per algorithm. Each returns a matplotlib Figure
(no pyplot state), so reports render headless."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Ellipse

# Metric -> (axis label with its unit, scale from the table's unit to the label's).
METRICS = {
    "goodput_bps": ("goodput (Mbit/s)", 1e-6),
    "rtt_p95_ms": ("95th-percentile RTT (ms)", 1.0),
    "retransmitted_segments": ("retransmitted segments", 1.0),
    "timeouts": ("retransmission timeouts", 1.0),
    "utilization": ("link utilization (%)", 100.0),
    "queue_delay_p95_ms": ("95th-percentile queueing delay (ms)", 1.0),
    "queue_drops": ("queue drops (packets)", 1.0),
}


def metric_against_parameter(
    aggregate: pd.DataFrame, metric: str, parameter: str, order: Sequence, others: Sequence[str]
) -> Figure:
    """The mean of ``metric`` at each value of ``parameter`` (categorical, in sweep order), one line
    per flow (by id: names change with the algorithm) or link direction and per combination of the
    other parameters, with its 95% interval as a band."""
    label, scale = METRICS[metric]
    rows = aggregate[aggregate["metric"] == metric]
    figure = Figure(figsize=(10, 4.2), layout="constrained")
    ax = figure.subplots()
    positions = {value: i for i, value in enumerate(order)}
    is_flows = (rows["table"] == "flows").all() and "flow_id" in rows
    if is_flows:
        rows = rows.assign(entity=rows["flow_id"].map(lambda flow: f"flow {int(flow)}"))
    group_keys = [*others, "entity"]
    for key, lines in rows.groupby(group_keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        lines = lines.assign(_x=lines[parameter].map(positions)).sort_values("_x")
        x = lines["_x"].to_numpy()
        mean = lines["mean"].to_numpy() * scale
        name = ", ".join(str(part) for part in key)
        ax.plot(x, mean, marker="o", linewidth=1.2, label=name)
        low, high = lines["ci95_low"].to_numpy() * scale, lines["ci95_high"].to_numpy() * scale
        if np.isfinite(low).any():
            ax.fill_between(x, low, high, alpha=0.2)
    ax.set_xticks(range(len(order)), [str(value) for value in order])
    ax.set_xlabel(parameter)
    ax.set_ylabel(label)
    ax.set_title(f"{label} against {parameter}: mean over runs, band 95% CI", fontsize="medium", loc="left")
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        figure.legend(handles, labels, loc="outside right upper", fontsize="small", title=", ".join(group_keys))
    return figure


def throughput_delay_scatter(flows: pd.DataFrame) -> Figure:
    """Pantheon's view: each TCP flow of each run as a point (95th-percentile RTT, goodput), one
    colour per algorithm, and the one-standard-deviation ellipse of each algorithm's points.
    The delay axis is inverted, as in Pantheon, so better is up and to the right."""
    figure = Figure(figsize=(8, 5), layout="constrained")
    ax = figure.subplots()
    tcp = flows[(flows["protocol"] == "tcp") & flows["rtt_p95_ms"].notna()]
    colours = {}
    for index, (algorithm, points) in enumerate(tcp.groupby("cc", sort=True)):
        colour = f"C{index % 10}"
        colours[algorithm] = colour
        x = points["rtt_p95_ms"].to_numpy()
        y = points["goodput_bps"].to_numpy() / 1e6
        ax.scatter(x, y, s=18, color=colour, alpha=0.7, label=f"{algorithm} ({len(points)} flow runs)")
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
