"""A finished (or partly finished) sweep read back from its directory, as pandas tables."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from tcplab.sweeps.aggregate import aggregate
from tcplab.sweeps.store import SweepStore


class SweepResult:
    """Tables of every finished run of a sweep, each with the varied labels and ``run`` as columns.

    - ``flows``, ``links``, ``timeseries``, ``queues``, ``events``: the run tables, stacked;
    - ``runs``: one row per run (seed, events, Jain's fairness index, total goodput, ...);
    - ``aggregate``: per point and flow (or link direction), the mean, standard deviation and 95%
      confidence interval of every metric over the runs;
    - ``points``: the varied values of each point; ``failures``: the runs that failed, with the error.

    Tables are read from disk when first used.
    """

    def __init__(self, directory: str | Path):
        self.store = SweepStore.open(directory)
        self.directory = self.store.directory

    @property
    def manifest(self) -> dict[str, Any]:
        return self.store.manifest

    @property
    def labels(self) -> list[str]:
        """The varied parameters' labels, in sweep order."""
        return [p["label"] for p in self.manifest["plan"]["parameters"]]

    @property
    def status(self) -> str:
        return self.manifest["status"]

    @cached_property
    def points(self) -> pd.DataFrame:
        rows = [{"point": p["point"], **p["values"]} for p in self.manifest["points"]]
        return pd.DataFrame(rows)

    @cached_property
    def failures(self) -> pd.DataFrame:
        return pd.DataFrame(self.manifest["failures"], columns=["point", "run", "values", "error"])

    @cached_property
    def flows(self) -> pd.DataFrame:
        return self.store.load("flows")

    @cached_property
    def links(self) -> pd.DataFrame:
        return self.store.load("links")

    @cached_property
    def timeseries(self) -> pd.DataFrame:
        return self.store.load("timeseries")

    @cached_property
    def queues(self) -> pd.DataFrame:
        return self.store.load("queues")

    @cached_property
    def events(self) -> pd.DataFrame:
        return self.store.load("events")

    @cached_property
    def transfers(self) -> pd.DataFrame:
        """Restarting flows' completed transfers, per point and run."""
        from tcplab.transfers import transfer_times

        return transfer_times(self.events, [*self.labels, "run"])

    @cached_property
    def runs(self) -> pd.DataFrame:
        return self.store.load("runs")

    @cached_property
    def aggregate(self) -> pd.DataFrame:
        return aggregate(self.flows, self.links, self.labels)

    def __repr__(self) -> str:
        total = self.manifest["total_runs"]
        return f"SweepResult('{self.directory}', {len(self.store.done())} of {total} runs, {self.status})"


def load_sweep(directory: str | Path) -> SweepResult:
    """The sweep in ``directory`` (written by ``tcplab sweep`` or ``tcplab.sweep``)."""
    return SweepResult(directory)
