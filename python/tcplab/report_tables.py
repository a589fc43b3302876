"""The tables of an HTML report: a run's flows and links, a sweep's per-point means with their
intervals, and the HTML they become. Flows are in id order and named as the figures name them
(``plots.flow_label``); a trace link's capacity is named as a trace."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

import pandas as pd

from tcplab import plots, report_figures
from tcplab.sweeps.aggregate import FEW_RUNS
from tcplab.traces import describe_capacity
from tcplab.transfers import completion


def flow_view(flows: pd.DataFrame) -> pd.DataFrame:
    """A run's flows, by id: goodput, losses, RTT and, for finite transfers, when they completed."""
    flows = flows.sort_values("flow_id")
    view = pd.DataFrame({
        "flow": [plots.flow_label(row) for _, row in flows.iterrows()],
        "cc": flows["cc"].where(flows["protocol"] == "tcp", flows["protocol"]),
        "goodput (Mbit/s)": flows["goodput_bps"] / 1e6,
        "retransmitted_segments": flows["retransmitted_segments"],
        "timeouts": flows["timeouts"],
        "RTT mean (ms)": flows["rtt_mean_ms"],
        "RTT p95 (ms)": flows["rtt_p95_ms"],
        "completion": [completion(row) for _, row in flows.iterrows()],
    })
    return view


def link_view(links: pd.DataFrame, traces: Mapping[tuple[str, str], Mapping[str, Any]]) -> pd.DataFrame:
    view = links[["link", "direction", "buffer", "utilization", "queue_drops", "ecn_marks", "queue_delay_mean_ms", "queue_delay_p95_ms"]].copy()
    view.insert(2, "capacity", [describe_capacity(row, traces) for _, row in links.iterrows()])
    view["utilization"] = view["utilization"] * 100
    return view.rename(columns={"utilization": "utilization (%)", "queue_delay_mean_ms": "queue delay mean (ms)",
                                "queue_delay_p95_ms": "queue delay p95 (ms)"})


def pivot(rows: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """One row per point and entity, one column per metric: 'mean [low, high]' in the metric's
    unit, and the number of runs behind it. Flows (rows with a ``flow_id``) are in id order
    within each point, points in sweep order."""
    if rows.empty:
        return pd.DataFrame()

    def cell(row: pd.Series) -> str:
        unit, scale = report_figures.METRICS[row["metric"]]
        mean = row["mean"] * scale
        if pd.isna(row["ci95_low"]):
            return f"{mean:.3g}"
        return f"{mean:.3g} [{row['ci95_low'] * scale:.3g}, {row['ci95_high'] * scale:.3g}]"

    rows = rows.assign(cell=rows.apply(cell, axis=1), metric=rows["metric"].map(lambda m: report_figures.METRICS[m][0]))
    is_flows = (rows["table"] == "flows").all()
    keys = [*labels, "flow_id", "entity"] if is_flows else [*labels, "entity"]
    table = rows.pivot_table(index=keys, columns="metric", values="cell", aggfunc="first", sort=False)
    runs = rows.groupby(keys, sort=False)["n"].max().astype(int).rename("runs (n)")
    table = table.join(runs).reset_index()
    if is_flows:
        table = table.sort_values("flow_id", kind="stable").sort_values(labels, kind="stable", key=_in_sweep_order(rows, labels))
        return table.drop(columns="flow_id").rename(columns={"entity": "flow"})
    return table.rename(columns={"entity": "link direction"})


def _in_sweep_order(rows: pd.DataFrame, labels: list[str]):
    """A sort key that keeps each label's values in the order the sweep lists them."""
    orders = {label: {value: i for i, value in enumerate(dict.fromkeys(rows[label]))} for label in labels}
    return lambda column: column.map(orders[column.name])


def few_runs_note(rows: pd.DataFrame) -> str:
    """A note under a table whose intervals rest on fewer than ``FEW_RUNS`` runs."""
    counts = rows["n"][rows["n"] > 1]
    if counts.empty or counts.min() >= FEW_RUNS:
        return ""
    return (f"<p class=\"note\">Note: some intervals rest on n = {int(counts.min())} runs, fewer than {FEW_RUNS}: Student's t "
            "interval is then wide and assumes the runs are normally distributed. Intervals are clipped to the "
            "metric's domain (nothing below 0, fractions at most 100%).</p>")


def html_table(frame: pd.DataFrame) -> str:
    """A plain HTML table; numbers to 4 significant digits, text left-aligned, everything escaped."""
    if frame.empty:
        return "<p>(no rows)</p>"
    head = "".join(f"<th>{html.escape(str(column))}</th>" for column in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for value in row:
            if isinstance(value, float):
                cells.append(f"<td>{'-' if value != value else f'{value:.4g}'}</td>")
            elif isinstance(value, int):
                cells.append(f"<td>{value}</td>")
            else:
                cells.append(f"<td class=\"text\">{html.escape(str(value))}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
