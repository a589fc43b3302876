"""The result of a run: pandas tables, saving to Parquet, plots."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from tcplab import _core


@dataclass
class Result:
    """Tables of one run.

    - ``summary``: scalars of the run (seed, events, Jain's fairness index, ...).
    - ``flows``: one row per flow (goodput, retransmissions, timeouts, RTT percentiles, ...).
    - ``links``: one row per link direction (utilization, drops, marks, queueing delay, ...).
    - ``timeseries``: per flow per sample (cwnd, ssthresh, srtt, in flight, throughput, state).
    - ``queues``: per link direction per sample (queue length in packets and bytes).
    - ``events``: events algorithms reported (mode switches and the like), with time and flow.
    - ``scenario_toml``: the scenario as it ran, every default written out.
    """

    summary: dict[str, Any]
    flows: pd.DataFrame
    links: pd.DataFrame
    timeseries: pd.DataFrame
    queues: pd.DataFrame
    events: pd.DataFrame
    scenario_toml: str
    files: list[Path] = field(default_factory=list)

    @classmethod
    def from_core(cls, raw: dict[str, Any], scenario_toml: str) -> Result:
        summary = dict(raw["summary"])
        summary["tcplab_version"] = _core.__version__
        flows = pd.DataFrame(raw["flows"])
        timeseries = pd.DataFrame(raw["flow_series"])
        names = dict(zip(flows["flow_id"], flows["name"]))
        timeseries.insert(2, "name", timeseries["flow_id"].map(names))
        return cls(
            summary=summary,
            flows=flows,
            links=pd.DataFrame(raw["links"]),
            timeseries=timeseries,
            queues=pd.DataFrame(raw["queue_series"]),
            events=pd.DataFrame(raw["events"]),
            scenario_toml=scenario_toml,
        )

    def save(self, directory: str | Path, csv: bool = False) -> list[Path]:
        """Writes Parquet tables, summary.json and scenario.toml into ``directory``; with ``csv``,
        each table as CSV beside its Parquet file too."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        metadata = {"tcplab_version": self.summary["tcplab_version"]}
        tables = [("flows", self.flows), ("links", self.links), ("timeseries", self.timeseries), ("queues", self.queues), ("events", self.events)]
        for name, frame in tables:
            path = out / f"{name}.parquet"
            _write_parquet(frame, path, metadata)
            written.append(path)
            if csv:
                csv_path = out / f"{name}.csv"
                frame.to_csv(csv_path, index=False)
                written.append(csv_path)
        summary_path = out / "summary.json"
        summary_path.write_text(json.dumps(_jsonable(self.summary), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        scenario_path = out / "scenario.toml"
        scenario_path.write_text(
            f"# Resolved by tcplab {self.summary['tcplab_version']}: every default written out.\n" + self.scenario_toml,
            encoding="utf-8",
        )
        written += [summary_path, scenario_path]
        self.files = written
        return written

    def plot(self, path: str | Path | None = None, smooth_s: float | None = None):
        """An overview figure (cwnd, RTT, throughput, queue over time); saved when ``path`` is given.

        ``smooth_s``: goodput as a trailing mean over that many seconds.
        """
        from tcplab import plots

        figure = plots.overview(self, smooth_s)
        if path is not None:
            figure.savefig(path, dpi=110)
        return figure

    def bottleneck(self) -> pd.Series:
        """The link direction that dropped or queued the most: where the congestion was."""
        links = self.links
        score = links["queue_drops"] + links["aqm_drops"] + links["max_queue_packets"]
        return links.loc[score.idxmax()]


def _write_parquet(frame: pd.DataFrame, path: Path, metadata: dict[str, str]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    merged = dict(table.schema.metadata or {})
    merged.update({key.encode(): value.encode() for key, value in metadata.items()})
    pq.write_table(table.replace_schema_metadata(merged), path)


def jsonable_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row as plain JSON values: numbers as numbers, NaN as None."""
    return {key: _plain(value) for key, value in row.items()}


def jsonable_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [jsonable_row(row) for row in frame.to_dict(orient="records")]


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):  # NumPy scalars
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


def _jsonable(summary: dict[str, Any]) -> dict[str, Any]:
    clean = {}
    for key, value in summary.items():
        if isinstance(value, float) and value != value:  # NaN is not JSON
            value = None
        clean[key] = value
    return clean
