"""The Python API: run, validate, list algorithms."""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tcplab import _core
from tcplab._core import ScenarioError
from tcplab.python_cc import register_algorithm
from tcplab.result import Result
from tcplab.scenario import ScenarioWarning, apply_overrides, load_scenario, to_json

BACKENDS = ("simulator", "linux", "ns2", "ns3")
# Engines a sweep's runs go to, in parallel: the simulator and the two simulators whose runs are
# independent processes. Linux runs share one kernel and pass in real time, so they are not swept.
SWEEP_BACKENDS = ("simulator", "ns2", "ns3")
# Shortcuts for the most common overrides; any other keyword uses "__" for the dots of a key.
_SHORTCUTS = {"duration": "simulation.duration", "seed": "simulation.seed", "run_index": "simulation.run"}


def _prepare(
    scenario: str | Path | Mapping[str, Any], overrides: Mapping[str, Any], dotted: Mapping[str, Any] | None
) -> str:
    """The scenario with keyword overrides, then `set=`'s dotted ones, as the JSON the core reads."""
    data = load_scenario(scenario)
    keywords = {_SHORTCUTS.get(key, key.replace("__", ".")): value for key, value in overrides.items()}
    data = apply_overrides(data, keywords)
    if dotted is not None:
        data = apply_overrides(data, dotted)
    return to_json(data)


def validate(
    scenario: str | Path | Mapping[str, Any],
    *,
    set: Mapping[str, Any] | None = None,  # noqa: A002 - mirrors the CLI's --set
    **overrides: Any,
) -> str:
    """Checks a scenario and returns it resolved (every default written out) as TOML.

    Overrides as for ``run``. Raises ScenarioError naming the key, the value and what is allowed;
    warns (``tcplab.ScenarioWarning``) about what is allowed but probably a mistake.
    """
    text = _prepare(scenario, overrides, set)
    resolved = _core.validate(text)
    _warn(text)
    return resolved


def _warn(scenario_json: str) -> None:
    for key, message in _core.warnings(scenario_json):
        warnings.warn(f"{key}: {message}", ScenarioWarning, stacklevel=3)


def run(
    scenario: str | Path | Mapping[str, Any],
    *,
    progress: bool = False,
    set: Mapping[str, Any] | None = None,  # noqa: A002 - mirrors the CLI's --set
    algorithms: Mapping[str, type] | None = None,
    backend: str = "simulator",
    **overrides: Any,
) -> Result:
    """Runs a scenario and returns its Result.

    ``scenario`` is a TOML file path, TOML text or a dict. Keyword overrides: ``duration``,
    ``seed`` and ``run_index`` set the simulation's; any other keyword is a key with ``__`` for
    dots (``topology__bottleneck__rate="25Mbps"``); ``set`` takes dotted keys
    (``{"flows.0.cc": "reno"}``). ``progress=True`` shows a progress bar on runs longer than about
    two seconds. ``algorithms`` maps names the scenario uses (``cc = "mine"``) to
    ``tcplab.CongestionControl`` subclasses written in Python; they stay registered in this
    process. Raises ``AlgorithmError`` (a ``ScenarioError``) when such an algorithm fails.

    ``backend="linux"`` runs the scenario on this machine's kernel instead: real TCP connections
    between network namespaces, the links emulated by tcplab (root needed; real time passes;
    docs/linux-backend.md). ``backend="ns2"`` runs it on Debian's ns-2.35 (docs/ns2-backend.md), ``backend="ns3"`` on
    ns-3 3.44 from the ns3 wheel (docs/ns3-backend.md).
    The Result has the same tables and says ``backend`` in its summary.
    """
    if backend not in BACKENDS:
        choices = ", ".join(repr(b) for b in BACKENDS[:-1]) + f" or {BACKENDS[-1]!r}"
        raise ScenarioError(f"backend: '{backend}' is not a back-end; use {choices}")
    if backend != "simulator":
        if algorithms:
            raise ScenarioError(f"algorithms: Python algorithms run on the simulator only, not on '{backend}'")
        text = _prepare(scenario, overrides, set)
        _warn(text)
        if backend == "linux":
            from tcplab.backends.linux import run_on_linux

            return run_on_linux(text, progress)
        if backend == "ns3":
            from tcplab.backends.ns3 import run_on_ns3

            return run_on_ns3(text, progress)
        from tcplab.backends.ns2 import run_on_ns2

        return run_on_ns2(text, progress)
    for name, cls in (algorithms or {}).items():
        register_algorithm(name, cls)
    text = _prepare(scenario, overrides, set)
    simulation = _core.Simulation(text)
    _warn(text)
    _advance(simulation, progress)
    return Result.from_core(simulation.take_results(), simulation.resolved_toml())


# Wall time one slice of simulation should take: Ctrl-C (checked between slices) and the progress
# bar answer within about this long.
_SLICE_WALL_S = 0.1


def _advance(simulation: Any, progress: bool) -> None:
    """Runs in slices of simulated time so a progress bar can follow and Ctrl-C stays responsive.

    Slices are sized to take about 0.1 s of wall time each, whatever the scenario's speed; where
    the slices fall changes no result (the event order does not depend on them).
    """
    end = simulation.end_ns
    slice_ns = max(end // 1000, 1)
    started = time.monotonic()
    bar = None
    try:
        while not simulation.finished:
            slice_started = time.monotonic()
            simulation.run_until(min(simulation.now_ns + slice_ns, end))
            took = time.monotonic() - slice_started
            # Grow or shrink the next slice towards the wall-time target, by at most 4x a step.
            scale = min(max(_SLICE_WALL_S / took, 0.25), 4.0) if took > 0 else 4.0
            slice_ns = max(int(slice_ns * scale), 1)
            if progress and bar is None and time.monotonic() - started > 2.0:
                bar = _progress_bar(end)
            if bar is not None:
                bar[0].update(bar[1], completed=simulation.now_ns / 1e9)
    finally:
        if bar is not None:
            bar[0].stop()


def _progress_bar(end_ns: int) -> tuple[Any, Any]:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    progress = Progress(
        TextColumn("simulating"),
        BarColumn(),
        TextColumn("{task.completed:.1f} / {task.total:.1f} s simulated"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        transient=True,
    )
    task = progress.add_task("run", total=end_ns / 1e9)
    progress.start()
    return progress, task


def algorithms() -> list[dict[str, Any]]:
    """Every registered congestion control algorithm with its parameters and defaults."""
    return _core.algorithms()
