"""A sweep on disk: ``sweep.json`` (the plan, the points, failures, status) and one Parquet
dataset per table, a file per run::

    DIR/sweep.json
    DIR/flows/p0003-r001.parquet      point 3, run 1
    DIR/links/...  DIR/timeseries/...  DIR/queues/...  DIR/events/...
    DIR/runs/p0003-r001.parquet       one row: the run's summary; written last, so it marks the run done

Every file is written under a hidden temporary name and renamed into place, so a sweep stopped at
any moment leaves no half-written file, and readers (pyarrow skips names starting with '.') never
see one.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from tcplab._core import __version__
from tcplab.scenario import _error
from tcplab.sweeps.plan import SweepPlan
from tcplab.sweeps.worker import TABLES

MANIFEST = "sweep.json"
_RUN_FILE = re.compile(r"^p(\d+)-r(\d+)\.parquet$")


class SweepStore:
    """Reads and writes one sweep directory."""

    def __init__(self, directory: Path, manifest: dict[str, Any]):
        self.directory = directory
        self.manifest = manifest

    @classmethod
    def create(cls, directory: str | Path, plan: SweepPlan) -> SweepStore:
        """A new sweep directory; refuses one that already holds a sweep."""
        directory = Path(directory)
        if (directory / MANIFEST).exists():
            raise _error("--out", f"'{directory}' already holds a sweep: resume it with --resume {directory}, or choose another --out")
        if directory.exists() and not directory.is_dir():
            raise _error("--out", f"'{directory}' is a file, not a directory")
        points = plan.points()
        manifest = {
            "tcplab_version": __version__,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "plan": plan.to_dict(),
            "kinds": plan.column_kinds(),
            "points": [{"point": index, "values": values} for index, values in enumerate(points)],
            "total_runs": len(points) * plan.runs,
            "failures": [],
            "status": "running",
        }
        directory.mkdir(parents=True, exist_ok=True)
        store = cls(directory, manifest)
        store.save_manifest()
        return store

    @classmethod
    def open(cls, directory: str | Path) -> SweepStore:
        """An existing sweep directory."""
        directory = Path(directory)
        path = directory / MANIFEST
        if not path.is_file():
            raise _error("--resume", f"'{directory}' holds no sweep ({MANIFEST} is missing)")
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise _error("--resume", f"cannot read '{path}': {exc}") from None
        return cls(directory, manifest)

    @property
    def plan(self) -> SweepPlan:
        return SweepPlan.from_dict(self.manifest["plan"])

    def run_path(self, table: str, point: int, run: int) -> Path:
        return self.directory / table / f"p{point:04d}-r{run:03d}.parquet"

    def done(self) -> set[tuple[int, int]]:
        """(point, run) of every run whose files are all on disk."""
        runs_dir = self.directory / "runs"
        if not runs_dir.is_dir():
            return set()
        found = set()
        for path in runs_dir.iterdir():
            match = _RUN_FILE.match(path.name)
            if match:
                found.add((int(match.group(1)), int(match.group(2))))
        return found

    def write_run(self, point: int, run: int, tables: Mapping[str, bytes]) -> None:
        """Writes a run's tables, the "runs" table last."""
        for name in TABLES:
            _write_atomically(self.run_path(name, point, run), tables[name])

    def record_failure(self, point: int, run: int, error: str) -> None:
        values = self.manifest["points"][point]["values"]
        self.manifest["failures"] = [f for f in self.manifest["failures"] if (f["point"], f["run"]) != (point, run)]
        self.manifest["failures"].append({"point": point, "run": run, "values": values, "error": error})
        self.save_manifest()

    def clear_failures(self, runs: set[tuple[int, int]]) -> None:
        """Forgets the failures of runs about to be tried again."""
        self.manifest["failures"] = [f for f in self.manifest["failures"] if (f["point"], f["run"]) not in runs]

    def set_status(self, status: str) -> None:
        self.manifest["status"] = status
        self.manifest["completed_runs"] = len(self.done())
        self.save_manifest()

    def save_manifest(self) -> None:
        text = json.dumps(self.manifest, indent=2, allow_nan=False) + "\n"
        _write_atomically(self.directory / MANIFEST, text.encode("utf-8"))

    def load(self, table: str) -> pd.DataFrame:
        """One table over every finished run, ordered by point and run."""
        folder = self.directory / table
        files = sorted(p for p in folder.glob("p*-r*.parquet") if _RUN_FILE.match(p.name)) if folder.is_dir() else []
        frames = [pq.read_table(path).to_pandas() for path in files]
        frames = [frame for frame in frames if len(frame)]
        if not frames:
            return pd.DataFrame()
        return pd.concat(frames, ignore_index=True)

    def remove_stale_temporaries(self) -> None:
        """Temporary files of a sweep that was killed while writing."""
        for path in self.directory.glob("*/.*.tmp"):
            path.unlink(missing_ok=True)


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    except BaseException:
        # An interrupt (Ctrl-C) that lands mid-write leaves no partial file behind.
        temporary.unlink(missing_ok=True)
        raise
