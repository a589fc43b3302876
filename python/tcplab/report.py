"""``tcplab report DIR``: one self-contained HTML file for a run or a sweep directory.

Everything is inside the file: figures are PNGs in base64 data URLs, the style is inline, and
there is no script, so it opens anywhere, offline, and can be mailed as is. A sweep's report
holds the scenario and the varied parameters, per-point tables of means with 95% confidence
intervals, each metric against each parameter, a Pantheon-style throughput vs delay scatter per
algorithm, and the time series of one run; a run's report holds its tables, the scatter and its
time series.
"""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import tomli_w

from tcplab import output_folder, plots, report_figures
from tcplab._core import ScenarioError
from tcplab.result import Result
from tcplab.sweeps.result import SweepResult
from tcplab.sweeps.store import MANIFEST

RUN_TABLES = ("flows", "links", "timeseries", "queues", "events")
FLOW_METRICS = ["goodput_bps", "rtt_p95_ms", "retransmitted_segments", "timeouts"]
LINK_METRICS = ["utilization", "queue_delay_p95_ms", "queue_drops"]

_STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f0f3f8; } td.text { text-align: left; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
img { max-width: 100%; display: block; margin: 0.5em 0 1.5em; }
.failure { color: #a00; }
"""


def _error(key: str, message: str) -> ScenarioError:
    return ScenarioError(f"{key}: {message}", key, message)


def write_report(directory: str | Path, out: str | Path | None = None, run: str | None = None) -> Path:
    """Writes the report of the run or sweep in ``directory``; returns the HTML file's path.

    ``run`` ("POINT:RUN") chooses the sweep run whose time series is shown (default: the first
    finished one).
    """
    directory = Path(directory)
    if (directory / MANIFEST).is_file():
        body, title = _sweep_sections(SweepResult(directory), run)
    elif (directory / "flows.parquet").is_file():
        if run is not None:
            raise _error("--run", "chooses a run of a sweep; this directory holds a single run")
        body, title = _run_sections(_load_run(directory))
    else:
        raise _error("DIR", f"'{directory}' is neither a run nor a sweep directory (no flows.parquet, no {MANIFEST})")
    path = Path(out) if out is not None else directory / "report.html"
    page = (
        f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
        f"<style>{_STYLE}</style></head><body>\n<h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n"
    )
    path.write_text(page, encoding="utf-8")
    output_folder.record(path.parent, [path])
    return path


# ----- a single run -----


def _load_run(directory: Path) -> Result:
    """A run saved by ``tcplab run`` / ``Result.save``, read back."""
    tables = {}
    for name in RUN_TABLES:
        path = directory / f"{name}.parquet"
        tables[name] = pq.read_table(path).to_pandas() if path.is_file() else pd.DataFrame()
    summary_path, scenario_path = directory / "summary.json", directory / "scenario.toml"
    summary = json.loads(summary_path.read_text(encoding="utf-8")) if summary_path.is_file() else {}
    scenario = scenario_path.read_text(encoding="utf-8") if scenario_path.is_file() else ""
    return Result(summary=summary, scenario_toml=scenario, **tables)


def _run_sections(result: Result) -> tuple[str, str]:
    summary = result.summary
    name = summary.get("scenario") or "run"
    on_linux = summary.get("backend") == "linux"
    labels = {"simulated_seconds": "seconds" if on_linux else "simulated seconds", "seed": "seed", "run": "run",
              "events": "events"}
    facts = ", ".join(
        f"{label} {summary[key]}"
        for key, label in labels.items()
        if summary.get(key) is not None and summary[key] == summary[key]  # None, NaN: a count the back-end lacks
    )
    if on_linux:
        facts = f"on the Linux kernel {summary.get('kernel', '')} (real TCP, emulated links), " + facts
    elif summary.get("backend") == "ns2":
        facts = f"on {summary.get('engine', 'ns-2')} (the scenario as a TCL script), " + facts
    elif summary.get("backend") == "ns3":
        facts = f"on {summary.get('engine', 'ns-3')} (the scenario as an ns-3 program), " + facts
    parts = [
        f"<p>{html.escape(facts)}; Jain's fairness index {summary.get('jain_fairness', float('nan')):.3f}.</p>",
        "<h2>Flows</h2>" + _table(_flow_view(result.flows)),
        "<h2>Busiest links</h2>" + _table(_link_view(result.links.sort_values("utilization", ascending=False).head(4))),
        "<h2>Throughput and delay</h2>" + _image(report_figures.throughput_delay_scatter(result.flows)),
        "<h2>Over time</h2>" + _image(plots.overview(result)),
        "<h2>Scenario</h2><pre>" + html.escape(result.scenario_toml) + "</pre>",
    ]
    return "\n".join(parts), f"tcplab report: {name}"


# ----- a sweep -----


def _sweep_sections(sweep: SweepResult, chosen: str | None) -> tuple[str, str]:
    manifest = sweep.manifest
    plan = manifest["plan"]
    name = plan["scenario"].get("name") or "sweep"
    parts = [_sweep_overview(sweep)]
    if sweep.runs.empty:
        parts.append("<p class=\"failure\">No run of this sweep has finished yet: there is nothing to summarise.</p>")
    else:
        parts.append(_sweep_tables(sweep))
        parts.append(_sweep_figures(sweep))
        parts.append("<h2>Throughput and delay</h2>" + _image(report_figures.throughput_delay_scatter(sweep.flows)))
        point, run = _chosen_run(sweep, chosen)
        values = manifest["points"][point]["values"]
        described = ", ".join(f"{k} = {v}" for k, v in values.items()) or "the scenario"
        parts.append(f"<h2>Over time: point {point} ({html.escape(described)}), run {run}</h2>")
        parts.append(_image(plots.overview(_run_of_sweep(sweep, point, run))))
    parts.append("<h2>Scenario</h2><pre>" + html.escape(tomli_w.dumps(plan["scenario"])) + "</pre>")
    return "\n".join(parts), f"tcplab sweep report: {name}"


def _sweep_overview(sweep: SweepResult) -> str:
    manifest = sweep.manifest
    plan = manifest["plan"]
    rows = [
        f"<li><code>{html.escape(p['label'])}</code> ({html.escape(', '.join(p['keys']) or 'scenario files')}): "
        f"{html.escape(', '.join(map(str, p['values'])))}</li>"
        for p in plan["parameters"]
    ]
    pairing = "paired position by position (zip)" if plan["zip"] else "every combination"
    text = (
        f"<p>{len(manifest['points'])} points ({pairing}) x {plan['runs']} runs = {manifest['total_runs']} runs; "
        f"{len(sweep.store.done())} finished; status: {html.escape(manifest['status'])}. Run r of a point is the "
        "scenario with simulation.run = r.</p>"
        f"<h2>Varied parameters</h2><ul>{''.join(rows) or '<li>none</li>'}</ul>"
    )
    failures = manifest["failures"]
    if failures:
        lines = "".join(
            f"<li>point {f['point']} run {f['run']} ({html.escape(json.dumps(f['values']))}): {html.escape(f['error'])}</li>"
            for f in sorted(failures, key=lambda f: (f["point"], f["run"]))
        )
        text += f"<h2 class=\"failure\">Failed runs ({len(failures)})</h2><ul class=\"failure\">{lines}</ul>"
    return text


def _sweep_tables(sweep: SweepResult) -> str:
    aggregate = sweep.aggregate
    labels = sweep.labels
    flows = aggregate[(aggregate["table"] == "flows") & aggregate["metric"].isin(FLOW_METRICS)]
    links = aggregate[(aggregate["table"] == "links") & aggregate["metric"].isin(LINK_METRICS)]
    links = links[links["entity"].isin(_busy_links(aggregate))]
    return (
        "<h2>Flows: mean over runs [95% confidence interval]</h2>" + _table(_pivot(flows, labels))
        + "<h2>Busiest links: mean over runs [95% confidence interval]</h2>" + _table(_pivot(links, labels))
    )


def _busy_links(aggregate: pd.DataFrame, count: int = 2) -> list[str]:
    """The link directions with the highest mean utilization over the sweep."""
    utilization = aggregate[(aggregate["table"] == "links") & (aggregate["metric"] == "utilization")]
    return list(utilization.groupby("entity")["mean"].mean().sort_values(ascending=False).head(count).index)


def _pivot(rows: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """One row per point and entity, one column per metric: 'mean [low, high]' in the metric's unit."""
    if rows.empty:
        return pd.DataFrame()

    def cell(row: pd.Series) -> str:
        unit, scale = report_figures.METRICS[row["metric"]]
        mean = row["mean"] * scale
        if pd.isna(row["ci95_low"]):
            return f"{mean:.3g}"
        return f"{mean:.3g} [{row['ci95_low'] * scale:.3g}, {row['ci95_high'] * scale:.3g}]"

    rows = rows.assign(cell=rows.apply(cell, axis=1), metric=rows["metric"].map(lambda m: report_figures.METRICS[m][0]))
    table = rows.pivot_table(index=[*labels, "entity"], columns="metric", values="cell", aggfunc="first", sort=False)
    return table.reset_index()


def _sweep_figures(sweep: SweepResult) -> str:
    aggregate, labels = sweep.aggregate, sweep.labels
    order = {p["label"]: p["values"] for p in sweep.manifest["plan"]["parameters"]}
    busy = _busy_links(aggregate, count=1)
    parts = []
    for parameter in labels:
        if len(order[parameter]) < 2:
            continue
        others = [label for label in labels if label != parameter]
        parts.append(f"<h2>Against {html.escape(parameter)}</h2>")
        for table, metrics in [("flows", FLOW_METRICS[:2]), ("links", LINK_METRICS[:2])]:
            rows = aggregate[aggregate["table"] == table]
            if table == "links":
                rows = rows[rows["entity"].isin(busy)]
            for metric in metrics:
                if (rows["metric"] == metric).any():
                    parts.append(_image(report_figures.metric_against_parameter(rows, metric, parameter, order[parameter], others)))
    return "\n".join(parts)


def _chosen_run(sweep: SweepResult, chosen: str | None) -> tuple[int, int]:
    done = sorted(sweep.store.done())
    if chosen is None:
        return done[0]
    point_text, separator, run_text = chosen.partition(":")
    if not separator or not point_text.isdigit() or not run_text.isdigit():
        raise _error("--run", f"'{chosen}' is not POINT:RUN (e.g. 0:1)")
    wanted = (int(point_text), int(run_text))
    if wanted not in done:
        raise _error("--run", f"point {wanted[0]} run {wanted[1]} has not finished in this sweep; finished: "
                     + ", ".join(f"{p}:{r}" for p, r in done[:20]) + (" ..." if len(done) > 20 else ""))
    return wanted


def _run_of_sweep(sweep: SweepResult, point: int, run: int) -> Result:
    """One run's tables, cut out of the sweep's, as a Result the plots can draw."""
    values = sweep.manifest["points"][point]["values"]
    columns = [*values, "run"]

    def rows_of(frame: pd.DataFrame) -> pd.DataFrame:
        if frame.empty:
            return frame
        mask = frame["run"] == run
        for label, value in values.items():
            mask &= frame[label].astype(str) == str(value)
        return frame[mask].drop(columns=columns).reset_index(drop=True)

    summary: dict[str, Any] = rows_of(sweep.runs).iloc[0].to_dict()
    summary["run"] = run
    return Result(
        summary=summary,
        flows=rows_of(sweep.flows),
        links=rows_of(sweep.links),
        timeseries=rows_of(sweep.timeseries),
        queues=rows_of(sweep.queues),
        events=rows_of(sweep.events),
        scenario_toml="",
    )


# ----- HTML pieces -----


def _flow_view(flows: pd.DataFrame) -> pd.DataFrame:
    view = flows[["name", "cc", "protocol", "goodput_bps", "retransmitted_segments", "timeouts", "rtt_mean_ms", "rtt_p95_ms"]].copy()
    view["goodput_bps"] = view["goodput_bps"] / 1e6
    return view.rename(columns={"goodput_bps": "goodput (Mbit/s)", "rtt_mean_ms": "RTT mean (ms)", "rtt_p95_ms": "RTT p95 (ms)"})


def _link_view(links: pd.DataFrame) -> pd.DataFrame:
    view = links[["link", "direction", "buffer", "utilization", "queue_drops", "ecn_marks", "queue_delay_mean_ms", "queue_delay_p95_ms"]].copy()
    view["utilization"] = view["utilization"] * 100
    return view.rename(columns={"utilization": "utilization (%)", "queue_delay_mean_ms": "queue delay mean (ms)",
                                "queue_delay_p95_ms": "queue delay p95 (ms)"})


def _table(frame: pd.DataFrame) -> str:
    """A plain HTML table; numbers to 4 significant digits, text left-aligned, everything escaped."""
    if frame.empty:
        return "<p>(no rows)</p>"
    head = "".join(f"<th>{html.escape(str(column))}</th>" for column in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for value in row:
            if isinstance(value, float):
                cells.append(f"<td>{'-' if value != value else f'{value:.4g}'}</td>")
            elif isinstance(value, int):
                cells.append(f"<td>{value}</td>")
            else:
                cells.append(f"<td class=\"text\">{html.escape(str(value))}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _image(figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    title = figure.axes[0].get_title() if figure.axes else "figure"
    return f"<img alt=\"{html.escape(title)}\" src=\"data:image/png;base64,{encoded}\">"
