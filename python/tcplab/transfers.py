"""Transfers of restarting flows (``restart = true``): one row per completed transfer, from the
``transfer_start`` and ``transfer_complete`` events the simulator reports."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

COLUMNS = ["flow_id", "name", "start_s", "end_s", "duration_s"]


def transfer_times(events: pd.DataFrame, keys: Sequence[str] = ()) -> pd.DataFrame:
    """Completed transfers per flow (and per ``keys``, e.g. a sweep's labels and run): when each
    started, when its last byte reached the receiver, and how long that took. A flow's transfers
    run one after another, so its n-th completion belongs to its n-th start."""
    group = [*keys, "flow_id", "name"]
    if events.empty or "event" not in events:
        return pd.DataFrame(columns=[*keys, *COLUMNS])
    ordered = events.sort_values("time_s", kind="stable")
    marks = ordered[ordered["event"].isin(["transfer_start", "transfer_complete"])].copy()
    # Number each flow's starts and completions 0, 1, 2, ... and join them on that number.
    marks["transfer"] = marks.groupby([*group, "event"], observed=True).cumcount()
    starts = marks[marks["event"] == "transfer_start"]
    ends = marks[marks["event"] == "transfer_complete"]
    joined = starts.merge(ends, on=[*group, "transfer"], suffixes=("_start", "_end"))
    joined = joined.rename(columns={"time_s_start": "start_s", "time_s_end": "end_s"})
    joined["duration_s"] = joined["end_s"] - joined["start_s"]
    return joined[[*keys, *COLUMNS]].reset_index(drop=True)
