"""Delivery traces: generate a 5G-like trace (the core's generator, docs/traces.md), write it in
mahimahi's format, read one back, and plot the capacity it offers over time."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tcplab._core import cellular_trace as _cellular_trace
from tcplab._core import cellular_trace_defaults as _cellular_trace_defaults

OPPORTUNITY_BYTES = 1500
NANOS_PER_MS = 1_000_000


def generate_cellular(params: Mapping[str, Any] | None = None, *, seed: int = 1, run: int = 0) -> list[int]:
    """Opportunity times in nanoseconds for the generator's parameters (the keys of a scenario's
    ``trace.cellular`` table, e.g. ``{"length": "30s", "nr_off_mean": "0s"}``)."""
    return _cellular_trace(json.dumps(dict(params or {})), seed, run)


def cellular_defaults() -> dict[str, Any]:
    """The generator's parameters at their defaults, in the scenario's units."""
    return json.loads(_cellular_trace_defaults())


def write_mahimahi(times_ns: Sequence[int], path: str | Path) -> Path:
    """One line per opportunity, in whole milliseconds, as mahimahi's mm-link reads them; missing
    parent folders are created."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{t // NANOS_PER_MS}\n" for t in times_ns))
    return path


def read_mahimahi(path: str | Path) -> list[int]:
    """Opportunity times in nanoseconds (comments and blank lines are not part of the format)."""
    return [int(line) * NANOS_PER_MS for line in Path(path).read_text().split() if line]


def capacity_series(times_ns: Sequence[int], bin_s: float = 0.1) -> tuple[list[float], list[float]]:
    """The capacity the trace offers, in Mbit/s per bin of ``bin_s`` seconds: (bin starts, rates)."""
    import numpy as np

    times = np.asarray(times_ns, dtype=np.float64) / 1e9
    end = float(times[-1]) if len(times) else 0.0
    edges = np.arange(0.0, end + bin_s, bin_s)
    counts, _ = np.histogram(times, bins=edges)
    return list(edges[:-1]), list(counts * OPPORTUNITY_BYTES * 8 / bin_s / 1e6)


def plot_capacity(times_ns: Sequence[int], path: str | Path, title: str = "generated 5G-like trace") -> Path:
    """A PNG of the trace's capacity over time (100 ms bins)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    starts, rates = capacity_series(times_ns)
    fig, ax = plt.subplots(figsize=(8, 3))
    ax.step(starts, rates, where="post", linewidth=0.8)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("capacity (Mbit/s, 100 ms bins)")
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


def link_traces(scenario: Mapping[str, Any]) -> dict[tuple[str, str], Mapping[str, Any]]:
    """(link, direction) -> its ``trace`` table, for every core link direction of a resolved
    scenario that delivers at a trace's times."""
    from tcplab.scenario import core_links

    found = {}
    for _, name, link in core_links(scenario):
        for direction in ("forward", "reverse"):
            trace = (link.get(direction) or {}).get("trace")
            if trace:
                found[(name, direction)] = trace
    return found


def trace_opportunities(trace: Mapping[str, Any], duration_s: float, seed: int, run: int, channel: int):
    """The opportunity times (ns, a NumPy array) a link direction's trace offers over ``duration_s``, repeated
    with the last line's time as the period, as the simulator repeats it. ``channel`` is the
    direction's row in the links table: a generated trace comes from that channel's own random
    stream, and ``generate_cellular`` draws channel 0's (the dumbbell's bottleneck forward, where
    cellular scenarios put it), so any other generated trace is None: only the simulator has it."""
    if "file" in trace:
        once = read_mahimahi(trace["file"])
    elif "cellular" in trace and channel == 0:
        once = generate_cellular(trace["cellular"], seed=seed, run=run)
    else:
        return None
    import numpy as np

    once_ns = np.asarray(once, dtype=np.int64)
    end = int(round(duration_s * 1e9))
    period = int(once_ns[-1]) if len(once_ns) else 0
    repeats = -(-end // period) if period > 0 else 1
    times = (once_ns[None, :] + period * np.arange(repeats, dtype=np.int64)[:, None]).ravel()
    return times[times < end]


def describe_capacity(link: Mapping[str, Any], capacities: Mapping[tuple[str, str], Mapping[str, Any]]) -> str:
    """A link direction's capacity for a table: its rate ("50 Mbit/s"), or for a trace link the
    trace's mean over the run ("trace (mean 221 Mbit/s)"; "trace (generated)" when only the
    simulator can redraw it), since its rate only sizes BDP buffers. ``capacities``:
    ``Result.trace_capacity()``."""
    trace = capacities.get((link["link"], link["direction"]))
    if trace is None:
        return f"{link['rate_bps'] / 1e6:g} Mbit/s"
    if trace["mean_mbit_s"] is None:
        return "trace (generated)"
    return f"trace (mean {trace['mean_mbit_s']:.3g} Mbit/s)"
