"""Sweeps: one scenario over varied parameters and repeated runs, on dask.distributed.

- ``plan.py``: the points and runs a sweep description gives;
- ``worker.py``: one run on a worker, its tables as Parquet bytes;
- ``store.py``: the sweep directory (manifest and Parquet datasets), written atomically;
- ``runner.py``: the Dask client, submission, and streaming to disk;
- ``aggregate.py``: means, deviations and confidence intervals over runs;
- ``result.py``: a sweep read back as pandas tables.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tcplab.sweeps.plan import Parameter, SweepPlan, compare_plan, plan_from
from tcplab.sweeps.result import SweepResult, load_sweep
from tcplab.sweeps.runner import ProgressCallback, execute
from tcplab.sweeps.store import SweepStore

__all__ = ["Parameter", "SweepPlan", "SweepResult", "compare", "load_sweep", "resume", "sweep"]


def sweep(
    scenario: str | Path | Mapping[str, Any] | Sequence[str | Path],
    vary: Mapping[str, Sequence[Any]] | None = None,
    *,
    runs: int | None = None,
    zip: bool | None = None,  # noqa: A002 - mirrors the CLI's --zip
    out: str | Path,
    workers: int | None = None,
    scheduler: str | None = None,
    set: Mapping[str, Any] | None = None,  # noqa: A002 - mirrors the CLI's --set
    on_progress: ProgressCallback | None = None,
    client: Any = None,
) -> SweepResult:
    """Runs ``scenario`` at every point of ``vary`` (dotted key -> values), ``runs`` times each.

    ``scenario`` is a path, TOML text, a dict, or a list of paths (then the file is varied too);
    a ``[sweep]`` table in it gives defaults for ``vary``, ``runs`` and ``zip``. Points are the
    Cartesian product of the values, or with ``zip=True`` the lists paired position by position.
    Results stream into ``out`` as each run finishes; ``workers`` sizes the local Dask cluster
    (default: one per core), ``scheduler`` ("tcp://host:8786") uses an existing one instead, and
    ``client`` uses a ``distributed.Client`` you already have. Returns the sweep's tables; failed
    runs are in ``.failures``.
    """
    sources = list(scenario) if isinstance(scenario, (list, tuple)) else [scenario]
    parameters = [Parameter(key, (key,), tuple(values)) for key, values in (vary or {}).items()]
    plan = plan_from(sources, parameters, runs=runs, zip_values=zip, overrides=set)
    store = SweepStore.create(out, plan)
    execute(store, workers=workers, scheduler=scheduler, on_progress=on_progress, client=client)
    return SweepResult(store.directory)


def resume(
    directory: str | Path,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    on_progress: ProgressCallback | None = None,
) -> SweepResult:
    """Runs what an interrupted sweep in ``directory`` has not finished (and its failed runs)."""
    store = SweepStore.open(directory)
    execute(store, workers=workers, scheduler=scheduler, on_progress=on_progress)
    return SweepResult(store.directory)


def compare(
    scenario: str | Path | Mapping[str, Any],
    algorithms: Sequence[str],
    *,
    runs: int = 1,
    out: str | Path,
    workers: int | None = None,
    scheduler: str | None = None,
    set: Mapping[str, Any] | None = None,  # noqa: A002 - mirrors the CLI's --set
    on_progress: ProgressCallback | None = None,
) -> SweepResult:
    """The scenario once per algorithm, set on every TCP flow (the label of the parameter is ``algorithm``)."""
    store = SweepStore.create(out, compare_plan(scenario, algorithms, runs=runs, overrides=set))
    execute(store, workers=workers, scheduler=scheduler, on_progress=on_progress)
    return SweepResult(store.directory)
