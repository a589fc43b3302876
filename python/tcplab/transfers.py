"""Finite transfers: how a flow's transfer ended (its completion time, or how much of it arrived),
and the transfers of restarting flows (``restart = true``): one row per completed transfer, from
the ``transfer_start`` and ``transfer_complete`` events the simulator reports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas is imported where it is used: a run's summary needs none
    import pandas as pd

COLUMNS = ["flow_id", "name", "start_s", "end_s", "duration_s"]


def transfer_times(events: pd.DataFrame, keys: Sequence[str] = ()) -> pd.DataFrame:
    """Completed transfers per flow (and per ``keys``, e.g. a sweep's labels and run): when each
    started, when its last byte reached the receiver, and how long that took. A flow's transfers
    run one after another, so its n-th completion belongs to its n-th start."""
    import pandas as pd

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


def completion(flow: Mapping[str, Any]) -> str:
    """How a flow's finite transfer ended: its completion time ("1.234 s") or how much of it
    arrived by the end of the run ("incomplete (45% delivered)"); "-" for an unlimited flow."""
    size = flow.get("size_bytes")
    if size is None or size != size:
        return "-"
    done = flow.get("completion_time_s")
    if done is not None and done == done:
        return f"{done:.3f} s"
    return f"incomplete ({flow['bytes_delivered'] / size:.0%} delivered)"
