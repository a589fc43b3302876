"""Rows of measurements from another engine (the kernel, ns-2) as the simulator's columns, and the
summary values every back-end computes alike."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

NAN = math.nan


def columns(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Columns as the simulator hands them over: text as lists, counts as uint64 arrays, other
    numbers (and counts the engine does not expose, NaN) as float64 arrays."""
    result = {}
    for key in rows[0] if rows else []:
        values = [row[key] for row in rows]
        if all(isinstance(v, str) for v in values):
            result[key] = values
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            result[key] = np.array(values, dtype=np.uint64)
        else:
            result[key] = np.array([NAN if v is None else float(v) for v in values], dtype=np.float64)
    return result


def summary(scenario: dict[str, Any], backend: str, duration: float, flow_rows: list[dict[str, Any]],
            packets_transmitted: int) -> dict[str, Any]:
    """The summary every back-end fills alike (docs/results.md); the simulator's own counts
    (events, peak live packets) are NaN elsewhere. Fairness is over TCP flows that started."""
    from tcplab import _core

    goodputs = [row["goodput_bps"] for row in flow_rows if row["protocol"] == "tcp" and row["start_s"] < duration]
    return {
        "scenario": scenario.get("name", ""),
        "seed": scenario["simulation"]["seed"],
        "run": scenario["simulation"].get("run", 0),
        "simulated_seconds": duration,
        "events": NAN,
        "packets_transmitted": packets_transmitted,
        "jain_fairness": jain(goodputs),
        "total_goodput_bps": float(sum(goodputs)),
        "peak_live_packets": NAN,
        "tcplab_version": _core.__version__,
        "backend": backend,
    }


def empty_events() -> dict[str, Any]:
    return {"time_s": np.array([], dtype=np.float64), "flow_id": np.array([], dtype=np.uint64), "name": [], "event": []}


def quantile(values: list[float], q: float) -> float:
    return float(np.quantile(values, q)) if values else NAN


def jain(values: list[float]) -> float:
    """Jain's fairness index, NaN when nothing was delivered."""
    if not values or not any(values):
        return NAN
    return sum(values) ** 2 / (len(values) * sum(v * v for v in values))


def queue_series(channels: list[dict[str, Any]], rows: dict[int, list]) -> list[dict[str, Any]]:
    """The queues table from each channel's samples (time, [packets, bytes, cumulative bytes
    transmitted]): the transmitted bytes become the throughput of each interval."""
    out = []
    for index, channel in enumerate(channels):
        previous, previous_time = 0, None
        for t, (packets, size, departed) in rows.get(index, []):
            interval = t - previous_time if previous_time is not None else None
            out.append({
                "time_s": t, "link": channel["link"], "direction": channel["direction"],
                "queue_packets": int(packets), "queue_bytes": int(size),
                "throughput_bps": (departed - previous) * 8 / interval if interval else 0.0,
            })
            previous, previous_time = departed, t
    out.sort(key=lambda row: row["time_s"])
    return out


def assemble(scenario: dict[str, Any], resolved_toml: str, backend: str, engine: str, wall_seconds: float,
             duration: float, tables: dict[str, list[dict[str, Any]]]):
    """A Result from another engine's rows (``flows``, ``links``, ``timeseries``, ``queues``,
    ``events``), with the summary every back-end fills and the engine's name and wall time."""
    from tcplab.result import Result

    summary_row = summary(scenario, backend, duration, tables["flows"],
                          int(sum(row["transmitted_packets"] for row in tables["links"])))
    summary_row.update({"engine": engine, "engine_wall_seconds": wall_seconds})
    result = Result(summary=summary_row, scenario_toml=resolved_toml)
    events = sorted(tables["events"], key=lambda row: (row["time_s"], row["flow_id"]))
    result._columns = {
        "flows": columns(tables["flows"]),
        "links": columns(tables["links"]),
        "timeseries": columns(sorted(tables["timeseries"], key=lambda row: (row["time_s"], row["flow_id"]))),
        "queues": columns(tables["queues"]),
        "events": columns(events) if events else empty_events(),
    }
    return result


def link_identity(channel: dict[str, Any], nodes: list[str], duration: float, transmitted_bytes: float) -> dict[str, Any]:
    """The links table's columns that every engine fills alike: which direction, its settings,
    and its time on the wire (every transmitted byte at the link's rate) over the run."""
    queue = channel["queue"]
    buffer = f"{queue['limit_packets']}p" if queue["limit_packets"] is not None else f"{queue['limit_bytes']}B"
    return {
        "link": channel["link"], "direction": channel["direction"],
        "from": nodes[channel["from"]], "to": nodes[channel["to"]], "rate_bps": int(channel["rate_bps"]),
        "delay_ms": channel["delay_ns"] / 1e6, "buffer": buffer,
        "utilization": transmitted_bytes * 8 / channel["rate_bps"] / duration,
        "throughput_bps": transmitted_bytes * 8 / duration,
    }

