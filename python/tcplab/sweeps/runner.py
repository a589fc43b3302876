"""Running a sweep's runs on dask.distributed and streaming each one to disk as it finishes.

By default a ``LocalCluster`` of one single-threaded worker process per core (the simulator runs
without the GIL, but pandas and Parquet work around it do not, so processes scale better than
threads: see benches/sweep.py); ``scheduler`` connects to an existing cluster instead. Results
travel back to this process as Parquet bytes and are written here, so workers need no shared disk.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from tcplab.scenario import _error
from tcplab.sweeps.store import SweepStore
from tcplab.sweeps.worker import run_point

# Told to the caller after each run: (finished so far, total, the run's error or None).
ProgressCallback = Callable[[int, int, str | None], None]


def pending_runs(store: SweepStore) -> list[tuple[int, int]]:
    """(point, run) of every run not yet on disk, in sweep order."""
    done = store.done()
    runs = store.manifest["plan"]["runs"]
    return [(p["point"], r) for p in store.manifest["points"] for r in range(runs) if (p["point"], r) not in done]


def execute(
    store: SweepStore,
    workers: int | None = None,
    scheduler: str | None = None,
    on_progress: ProgressCallback | None = None,
    client: Any = None,
) -> dict[str, int]:
    """Runs every pending run of the sweep; returns counts of finished and failed runs.

    ``client``, a ``distributed.Client`` the caller already has, is used as it is (and left open).

    Ctrl-C (KeyboardInterrupt) cancels what is still running, marks the sweep "interrupted" and
    is raised again: ``--resume`` then runs only what is missing.
    """
    plan = store.plan
    kinds = store.manifest["kinds"]
    todo = pending_runs(store)
    store.remove_stale_temporaries()
    store.clear_failures(set(todo))
    total = store.manifest["total_runs"]
    finished = total - len(todo)
    failed = 0
    if on_progress:
        on_progress(finished, total, None)
    if not todo:
        store.set_status("complete")
        return {"finished": finished, "failed": 0}
    _prepare_backend(plan.backend)
    with ExitStack() as stack:
        client = client or _client(stack, workers, scheduler)
        futures = {}
        for point, run in todo:
            values = store.manifest["points"][point]["values"]
            future = client.submit(run_point, plan.scenario_for(values, run), values, kinds, run, plan.backend,
                                   pure=False)
            futures[future] = (point, run)
        try:
            finished, failed = _collect(store, futures, finished, total, on_progress)
        except KeyboardInterrupt:
            client.cancel(list(futures))
            store.set_status("interrupted")
            raise
    store.set_status("complete" if failed == 0 else "complete with failures")
    return {"finished": finished, "failed": failed}


def _prepare_backend(backend: str) -> None:
    """ns-3's engine is compiled once here, before the runs, rather than by every worker at once
    (the workers share this machine's build cache)."""
    if backend == "ns3":
        from tcplab.backends.ns3.build import engine_program

        engine_program()


def _collect(store: SweepStore, futures: dict, finished: int, total: int, on_progress: ProgressCallback | None) -> tuple[int, int]:
    from distributed import as_completed

    failed = 0
    for future in as_completed(futures):
        point, run = futures.pop(future)
        try:
            outcome: dict[str, Any] = future.result()
        except Exception as exc:  # noqa: BLE001 - a killed worker or a crash: report the run, go on
            outcome = {"error": f"{type(exc).__name__}: {exc}"}
        future.release()
        error = outcome.get("error")
        if error is None:
            store.write_run(point, run, outcome["tables"])
            finished += 1
        else:
            store.record_failure(point, run, error)
            failed += 1
        if on_progress:
            on_progress(finished + failed, total, error)
    return finished, failed


def _client(stack: ExitStack, workers: int | None, scheduler: str | None):
    """A client of the given scheduler, or of a local cluster that closes with the stack."""
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            return stack.enter_context(Client(scheduler, timeout="10s"))
        except OSError as exc:
            raise _error("--scheduler", f"cannot reach the Dask scheduler at '{scheduler}': {exc}") from None
    if workers is not None and workers < 1:
        raise _error("--workers", f"{workers} is not a number of workers (1 or more)")
    count = workers or os.cpu_count() or 1
    cluster = stack.enter_context(
        LocalCluster(
            n_workers=count,
            threads_per_worker=1,
            processes=True,
            # A free port: several clusters on one machine (parallel sweeps) must not clash on 8787.
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
    )
    return stack.enter_context(Client(cluster))
