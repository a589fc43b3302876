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


def run_point(scenario: Mapping[str, Any], values: Mapping[str, Any], kinds: Mapping[str, str], run: int,
              backend: str = "simulator") -> dict[str, Any]:
    """Runs one point's scenario on `backend`; returns {"tables": {name: Parquet bytes}} or
    {"error": message}."""
    from tcplab._core import ScenarioError
    from tcplab.api import run as run_scenario

    # Another engine's failure (its process exited with an error, it is not installed) is that
    # point's error; on the simulator anything but a scenario error is a bug and is raised.
    failures = (ScenarioError,) if backend == "simulator" else (ScenarioError, RuntimeError, OSError)
    started = time.perf_counter()
    try:
        result = run_scenario(scenario, backend=backend)
    except failures as error:
        return {"error": str(error.args[0]) if error.args else repr(error)}
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
    tables = {name: table_bytes(frames[name], columns, run, metadata) for name in TABLES}
    return {"tables": tables, "wall_s": wall, "summary": summary}


def table_bytes(frame: pd.DataFrame, columns: Mapping[str, Any], run: int, metadata: Mapping[str, str]) -> bytes:
    """A Parquet file in memory: the varied values and the run index as the first columns,
    repeated on every row, then the frame's columns; tcplab's key/value metadata in the schema.

    The Arrow table is built from the columns' NumPy arrays rather than with ``from_pandas``, which
    costs about three times as much for these small tables (benches/sweep.py).
    """
    rows = len(frame)
    names = [*columns, "run", *map(str, frame.columns)]
    arrays = [pa.array([value] * rows, type=_arrow_type(value)) for value in columns.values()]
    arrays.append(pa.array([run] * rows, type=pa.int64()))
    arrays += [pa.array(frame[column].to_numpy()) for column in frame.columns]
    table = pa.Table.from_arrays(arrays, names=names)
    table = table.replace_schema_metadata({key.encode(): value.encode() for key, value in metadata.items()})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def _arrow_type(value: Any) -> pa.DataType:
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64()
    if isinstance(value, float):
        return pa.float64()
    return pa.string()
