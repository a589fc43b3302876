"""The result of a run: pandas tables, saving to Parquet, plots.

The tables arrive from the simulator as columns (NumPy arrays and lists). They become pandas
DataFrames only when first read, and ``save`` writes columns that were never read straight to
Parquet with pyarrow, so ``tcplab run`` never imports pandas (about 0.6 s) unless it is needed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab import _core, output_folder

if TYPE_CHECKING:
    import pandas as pd

TABLES = ("flows", "links", "timeseries", "queues", "events")
# The simulator's name for each table.
_CORE_NAMES = {"flows": "flows", "links": "links", "timeseries": "flow_series", "queues": "queue_series", "events": "events"}


def _table(name: str, doc: str) -> property:
    def get(self: Result) -> pd.DataFrame:
        frame = self._frames.get(name)
        if frame is None:
            import pandas as pd

            frame = self._frames[name] = pd.DataFrame(self._columns.pop(name, {}))
        return frame

    def set_(self: Result, frame: pd.DataFrame) -> None:
        self._frames[name] = frame
        self._columns.pop(name, None)

    return property(get, set_, doc=doc)


class Result:
    """Tables of one run.

    - ``summary``: scalars of the run (seed, events, Jain's fairness index, ...).
    - ``flows``: one row per flow (goodput, retransmissions, timeouts, RTT percentiles, ...).
    - ``links``: one row per link direction (utilization, drops, marks, queueing delay, ...).
    - ``timeseries``: per flow per sample (cwnd, ssthresh, srtt, in flight, delivery rate,
      throughput, state).
    - ``queues``: per link direction per sample (queue length in packets and bytes).
    - ``events``: events with time and flow: algorithms' mode switches and the like, and the
      sender's own (``timeout``, ``undo``, ``transfer_start``, ``transfer_complete``).
    - ``transfers``: restarting flows' completed transfers (start, end, duration).
    - ``scenario_toml``: the scenario as it ran, every default written out.
    - ``captures``: pcap files of the link directions named in ``simulation.capture``, by file
      name (``"bottleneck-forward.pcap"``), as bytes; ``save`` writes them.
    """

    flows = _table("flows", "One row per flow.")
    links = _table("links", "One row per link direction.")
    timeseries = _table("timeseries", "Per flow per sample.")
    queues = _table("queues", "Per link direction per sample.")
    events = _table("events", "Events algorithms reported.")

    def __init__(self, summary: dict[str, Any], scenario_toml: str, **tables: pd.DataFrame) -> None:
        unknown = set(tables) - set(TABLES)
        if unknown:
            raise TypeError(f"Result() got unknown tables {sorted(unknown)}; the tables are {', '.join(TABLES)}")
        self.summary = summary
        self.scenario_toml = scenario_toml
        self.files: list[Path] = []
        self._frames: dict[str, pd.DataFrame] = dict(tables)
        self._columns: dict[str, dict[str, Any]] = {}
        self.captures: dict[str, bytes] = {}
        self._trace_capacity: dict[tuple[str, str], dict[str, Any]] | None = None

    def __repr__(self) -> str:
        return f"Result(scenario={self.summary.get('scenario')!r}, flows={self.row_count('flows')})"

    @classmethod
    def from_core(cls, raw: dict[str, Any], scenario_toml: str) -> Result:
        summary = dict(raw["summary"])
        summary["tcplab_version"] = _core.__version__
        result = cls(summary=summary, scenario_toml=scenario_toml)
        result._columns = {name: raw[_CORE_NAMES[name]] for name in TABLES}
        flows, series = result._columns["flows"], result._columns["timeseries"]
        names = dict(zip(flows["flow_id"].tolist(), flows["name"]))
        # The flow's name beside its id, third column, as in the flows table.
        named = list(series.items())
        named.insert(2, ("name", [names[flow_id] for flow_id in series["flow_id"].tolist()]))
        result._columns["timeseries"] = dict(named)
        result.captures = dict(raw.get("captures", {}))
        return result

    @property
    def transfers(self) -> pd.DataFrame:
        """One row per completed transfer of the restarting flows (``restart = true``)."""
        from tcplab.transfers import transfer_times

        return transfer_times(self.events)

    def row_count(self, name: str) -> int:
        """Rows of a table, without building its DataFrame."""
        if name in self._frames:
            return len(self._frames[name])
        columns = self._columns.get(name, {})
        return len(next(iter(columns.values()))) if columns else 0

    def records(self, name: str) -> list[dict[str, Any]]:
        """A table's rows as dicts of plain Python values (NaN stays NaN), without pandas when
        the table has not been read as a DataFrame."""
        if name in self._frames:
            return self._frames[name].to_dict(orient="records")
        columns = {key: values.tolist() if hasattr(values, "tolist") else list(values) for key, values in self._columns[name].items()}
        return [dict(zip(columns, row)) for row in zip(*columns.values())]

    def save(self, directory: str | Path, csv: bool = False) -> list[Path]:
        """Writes Parquet tables, summary.json, scenario.toml and any pcap captures into
        ``directory``; with ``csv``, each table as CSV beside its Parquet file too. Files an
        earlier save, plot or report wrote there are removed first (``tcplab.output_folder``)."""
        out = _writable_folder(directory, "directory")
        output_folder.clear(out)
        written = []
        metadata = {"tcplab_version": self.summary["tcplab_version"]}
        for name in TABLES:
            path = out / f"{name}.parquet"
            _write_parquet(self._arrow_table(name), path, metadata)
            written.append(path)
            if csv:
                csv_path = out / f"{name}.csv"
                getattr(self, name).to_csv(csv_path, index=False)
                written.append(csv_path)
        summary_path = out / "summary.json"
        summary_path.write_text(json.dumps(_jsonable(self.summary), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        scenario_path = out / "scenario.toml"
        scenario_path.write_text(
            f"# Resolved by tcplab {self.summary['tcplab_version']}: every default written out.\n" + self.scenario_toml,
            encoding="utf-8",
        )
        written += [summary_path, scenario_path]
        for name, data in self.captures.items():
            capture_path = out / name
            capture_path.write_bytes(data)
            written.append(capture_path)
        output_folder.record(out, written)
        self.files = written
        return written

    def _arrow_table(self, name: str):
        if name in self._frames:
            import pyarrow as pa

            return pa.Table.from_pandas(self._frames[name], preserve_index=False)
        from tcplab.columns_to_arrow import arrow_table

        return arrow_table(self._columns.get(name, {}))

    def plot(self, path: str | Path | None = None, smooth_s: float | None = None, links: list[str] | None = None):
        """An overview figure (cwnd, RTT, goodput, and the queue of each congested link over
        time); saved when ``path`` is given.

        ``smooth_s``: goodput as a trailing mean over that many seconds (default max(1 s, 10
        samples); 0: as sampled). ``links``: the links whose queues and capacities are drawn,
        by name (default: the congested ones).
        """
        from tcplab import plots

        figure = plots.overview(self, smooth_s, links)
        if path is not None:
            _writable_folder(Path(path).parent, "path")
            figure.savefig(path, dpi=110)
        return figure

    def trace_capacity(self) -> dict[tuple[str, str], dict[str, Any]]:
        """(link, direction) -> the capacity of each link direction that delivers at a trace's
        times: ``mean_mbit_s`` over the run and ``starts_s``/``mbit_s`` in 100 ms bins, all None
        for a generated trace only the simulator can redraw (``traces.trace_opportunities``).
        Read from the scenario as it ran; empty when the result has no scenario."""
        if self._trace_capacity is None:
            self._trace_capacity = self._read_trace_capacity()
        return self._trace_capacity

    def _read_trace_capacity(self) -> dict[tuple[str, str], dict[str, Any]]:
        import tomllib

        from tcplab import traces

        found = traces.link_traces(tomllib.loads(self.scenario_toml))
        if not found:
            return {}
        rows = [(row["link"], row["direction"]) for row in self.records("links")]
        duration = float(self.summary.get("simulated_seconds") or 0.0)
        capacity = {}
        for key, trace in found.items():
            channel = rows.index(key) if key in rows else -1
            times = traces.trace_opportunities(trace, duration, int(self.summary.get("seed", 0)), int(self.summary.get("run", 0)), channel)
            if times is None or duration <= 0:
                capacity[key] = {"mean_mbit_s": None, "starts_s": None, "mbit_s": None}
                continue
            starts, rates = traces.capacity_series(times)
            mean = len(times) * traces.OPPORTUNITY_BYTES * 8 / duration / 1e6
            capacity[key] = {"mean_mbit_s": mean, "starts_s": starts, "mbit_s": rates}
        return capacity

    def bottleneck(self) -> pd.Series:
        """The link direction that dropped or queued the most: where the congestion was. A
        back-end that records no maximum queue (ns-2) leaves it out; utilization breaks ties."""
        links = self.links
        score = links["queue_drops"] + links["aqm_drops"] + links["max_queue_packets"].fillna(0) + links["utilization"]
        return links.loc[score.idxmax()]


def _writable_folder(directory: str | Path, argument: str) -> Path:
    """The folder, created if missing; a ScenarioError naming the argument if it cannot be."""
    from tcplab.scenario import _error

    folder = Path(directory)
    if folder.exists() and not folder.is_dir():
        raise _error(argument, f"'{folder}' is a file; results go into a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _error(argument, f"cannot create the folder '{folder}': {exc.strerror}") from None
    return folder


def _write_parquet(table: Any, path: Path, metadata: dict[str, str]) -> None:
    import pyarrow.parquet as pq

    merged = dict(table.schema.metadata or {})
    merged.update({key.encode(): value.encode() for key, value in metadata.items()})
    pq.write_table(table.replace_schema_metadata(merged), path)


def jsonable_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row as plain JSON values: numbers as numbers, NaN as None."""
    return {key: _plain(value) for key, value in row.items()}


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
