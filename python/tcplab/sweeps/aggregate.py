"""Statistics over a sweep's runs: per point and per flow (or link direction), the mean, standard
deviation and 95% confidence interval of every metric.

The interval is Student's t interval for the mean, mean +- t(0.975, n - 1) * s / sqrt(n), with s
the sample standard deviation (n - 1 in the denominator): runs are few, so the normal quantile
1.96 would be too narrow. With one run the deviation and the interval are NaN.

The interval is then clipped to the metric's domain: every metric of the tables is a count, a
rate, a size, a time or a fraction, so none is below 0, and fractions (``FRACTIONS``) are at most
1. With 2 or 3 runs t is 12.7 or 4.3 and the bare interval reaches negative goodputs and
utilizations above 100%, which no run could show. ``n`` stays beside it: an interval from fewer
than ``FEW_RUNS`` runs is wide and rests on the runs being normal, and reports say so.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

# Columns that identify a flow or a link rather than measure it.
_FLOW_IDENTITY = ["flow_id", "name", "protocol", "cc", "source", "destination", "start_s", "base_rtt_ms", "packet_payload_bytes", "size_bytes"]
_LINK_IDENTITY = ["link", "direction", "from", "to", "rate_bps", "delay_ms", "buffer"]
# Metrics that are fractions of a whole, in [0, 1].
FRACTIONS = frozenset({"utilization", "loss_ratio", "jain_fairness"})
# Fewer runs than this and reports add a note to their intervals.
FEW_RUNS = 5


def aggregate(flows: pd.DataFrame, links: pd.DataFrame, labels: Sequence[str]) -> pd.DataFrame:
    """A long table: table, the varied labels, entity, metric, n, mean, std, ci95_low, ci95_high.

    ``entity`` is the flow's name for flows and "link direction" for links; flows also keep their
    ``flow_id`` (a flow's name can change with a varied parameter, e.g. "cubic-0" and "bbr-0").
    """
    parts = []
    if len(flows):
        parts.append(_summarise(flows, list(labels), ["flow_id", "name"], _FLOW_IDENTITY, "flows", lambda k: k[-1]))
    if len(links):
        parts.append(_summarise(links, list(labels), ["link", "direction"], _LINK_IDENTITY, "links", lambda k: f"{k[-2]} {k[-1]}"))
    if not parts:
        return pd.DataFrame(columns=["table", *labels, "entity", "flow_id", "metric", "n", "mean", "std", "ci95_low", "ci95_high"])
    table = pd.concat(parts, ignore_index=True)
    # Links have no flow id: a nullable integer keeps the flows' ids whole instead of floats.
    if "flow_id" in table:
        table["flow_id"] = table["flow_id"].astype("Int64")
    return table


def _summarise(frame: pd.DataFrame, labels: list[str], entity_keys: list[str], identity: list[str], table: str, entity_of) -> pd.DataFrame:
    metrics = [
        column
        for column in frame.columns
        if column not in identity and column not in labels and column != "run" and pd.api.types.is_numeric_dtype(frame[column])
        and not pd.api.types.is_bool_dtype(frame[column])
    ]
    keys = labels + entity_keys
    long = frame.melt(id_vars=keys, value_vars=metrics, var_name="metric", value_name="value")
    grouped = long.groupby(keys + ["metric"], sort=False, dropna=False)["value"]
    summary = grouped.agg(n="count", mean="mean", std="std").reset_index()
    half_width = _t_quantile(summary["n"]) * summary["std"] / np.sqrt(summary["n"])
    summary["ci95_low"] = (summary["mean"] - half_width).clip(lower=0.0)
    upper = np.where(summary["metric"].isin(FRACTIONS), 1.0, np.inf)
    summary["ci95_high"] = np.minimum(summary["mean"] + half_width, upper)
    summary.insert(0, "table", table)
    summary.insert(len(labels) + 1, "entity", [entity_of(tuple(row)) for row in summary[keys].itertuples(index=False)])
    return summary.drop(columns=[key for key in entity_keys if key != "flow_id"])


def _t_quantile(n: pd.Series) -> np.ndarray:
    """t(0.975, n - 1), NaN where n < 2."""
    from scipy import stats  # imported when needed: it adds a noticeable start-up time

    degrees = n.to_numpy(dtype=float) - 1
    with np.errstate(invalid="ignore"):
        return np.where(degrees >= 1, stats.t.ppf(0.975, np.maximum(degrees, 1)), np.nan)
