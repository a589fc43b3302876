"""One run of a sweep, as a Dask worker executes it: simulate, then turn each table into Parquet
bytes carrying the point's values and the run index as columns.

Workers import this module by name, so it must stay importable on its own (no state, plain
arguments). Errors come back as a message rather than an exception, so that one failing point is
reported with its parameters while the other runs go on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

# The tables every run writes, in the order they are written; "runs" (one row per run: seed,
# events, fairness, wall time) goes last and marks the run as complete on disk.
TABLES = ("flows", "links", "timeseries", "queues", "events", "runs")


def column_value(value: Any, kind: str) -> Any:
    """A varied value as stored in its column: numbers as numbers, anything else as text."""
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def run_point(scenario: Mapping[str, Any], values: Mapping[str, Any], kinds: Mapping[str, str], run: int) -> dict[str, Any]:
    """Runs one point's scenario; returns {"tables": {name: Parquet bytes}} or {"error": message}."""
    from tcplab._core import ScenarioError
    from tcplab.api import run as run_scenario

    started = time.perf_counter()
    try:
        result = run_scenario(scenario)
    except ScenarioError as error:
        return {"error": str(error.args[0])}
    wall = time.perf_counter() - started
    columns = {label: column_value(value, kinds[label]) for label, value in values.items()}
    # The summary's own "run" is the run index, which every table gets as a column anyway.
    summary = {key: value for key, value in result.summary.items() if key != "run"}
    frames = {
        "flows": result.flows,
        "links": result.links,
        "timeseries": result.timeseries,
        "queues": result.queues,
        "events": result.events,
        # Wall time is measured, so it differs between reruns; it stays out of the Parquet bytes
        # (which must be identical for the same point and run) and travels beside them.
        "runs": pd.DataFrame([summary]),
    }
    metadata = {"tcplab_version": str(result.summary["tcplab_version"])}
    tables = {name: parquet_bytes(_with_point_columns(frames[name], columns, run), metadata) for name in TABLES}
    return {"tables": tables, "wall_s": wall, "summary": summary}


def _with_point_columns(frame: pd.DataFrame, columns: Mapping[str, Any], run: int) -> pd.DataFrame:
    """The varied values and the run index as the first columns, repeated on every row."""
    front = {
        label: pd.Series([value] * len(frame), index=frame.index, dtype=_dtype(value)) for label, value in columns.items()
    }
    front["run"] = pd.Series([run] * len(frame), index=frame.index, dtype="int64")
    return pd.concat([pd.DataFrame(front, index=frame.index), frame], axis=1)


def _dtype(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    return "object"


def parquet_bytes(frame: pd.DataFrame, metadata: Mapping[str, str]) -> bytes:
    """The frame as a Parquet file in memory, with tcplab's key/value metadata."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    merged = dict(table.schema.metadata or {})
    merged.update({key.encode(): value.encode() for key, value in metadata.items()})
    sink = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(merged), sink)
    return sink.getvalue().to_pybytes()
