"""``tcplab report DIR``: one self-contained HTML file for a run or a sweep directory.

Everything is inside the file: figures are PNGs in base64 data URLs, the style is inline, and
there is no script, so it opens anywhere, offline, and can be mailed as is. A sweep's report
holds the scenario and the varied parameters, per-point tables of means with 95% confidence
intervals (clipped to each metric's domain, with the number of runs), each metric against each
parameter, a Pantheon-style throughput vs delay scatter per algorithm, and the time series of
one run (of one run per algorithm when the sweep varies ``algorithm``, as ``tcplab compare``
does); a run's report holds its tables, the scatter and its time series. Links shown are the
congested ones and those a sweep varies, or those ``links`` names; every image has alt text
saying what it shows.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import tomli_w

from tcplab import cli_options, output_folder, plots, report_figures
from tcplab._core import ScenarioError
from tcplab.report_tables import few_runs_note, flow_view, html_table, link_view, pivot
from tcplab.result import Result
from tcplab.scenario import links_named_by
from tcplab.sweeps.result import SweepResult
from tcplab.sweeps.store import MANIFEST

RUN_TABLES = ("flows", "links", "timeseries", "queues", "events")
FLOW_METRICS = ["goodput_bps", "rtt_p95_ms", "retransmitted_segments", "timeouts", "completion_time_s"]
LINK_METRICS = ["utilization", "queue_delay_p95_ms", "queue_drops"]
# The parameter ``tcplab compare`` varies (``sweeps.plan.compare_plan``).
ALGORITHM_LABEL = "algorithm"

_STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f0f3f8; } td.text { text-align: left; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
img { max-width: 100%; display: block; margin: 0.5em 0 1.5em; }
.failure { color: #a00; } .note { color: #555; font-size: 0.9em; }
"""


def _error(key: str, message: str) -> ScenarioError:
    return ScenarioError(f"{key}: {message}", key, message)


def write_report(directory: str | Path, out: str | Path | None = None, run: str | None = None,
                 links: str | Sequence[str] | None = None) -> Path:
    """Writes the report of the run or sweep in ``directory``; returns the HTML file's path.

    ``run`` ("POINT:RUN") chooses the sweep run whose time series is shown (default: the first
    finished one; with an ``algorithm`` parameter, the first of each algorithm). ``links``
    ("NAME,NAME" or a list of names) chooses the links whose tables, queues and capacities are
    shown (default: the congested ones and those the sweep varies).
    """
    directory = Path(directory)
    if links is not None and not isinstance(links, str):
        links = ",".join(links)
    if (directory / MANIFEST).is_file():
        sweep = SweepResult(directory)
        names = cli_options.links(links, sweep.links) if links is not None and not sweep.links.empty else None
        body, title = _sweep_sections(sweep, run, names)
    elif (directory / "flows.parquet").is_file():
        if run is not None:
            raise _error("--run", "chooses a run of a sweep; this directory holds a single run")
        result = _load_run(directory)
        body, title = _run_sections(result, cli_options.links(links, result.links))
    else:
        raise _error("DIR", f"'{directory}' is neither a run nor a sweep directory (no flows.parquet, no {MANIFEST})")
    path = Path(out) if out is not None else directory / "report.html"
    page = (
        f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
        f"<style>{_STYLE}</style></head><body>\n<h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
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


_SCATTER_ALT = ("Throughput against delay: each TCP flow of each run as a point at its 95th-percentile RTT "
                "(better to the right) and goodput, one colour per algorithm, with each algorithm's one-standard-"
                "deviation ellipse")


def _run_sections(result: Result, names: list[str] | None) -> tuple[str, str]:
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
    shown = plots.shown_links(result, names)
    parts = [
        f"<p>{html.escape(facts)}; Jain's fairness index {summary.get('jain_fairness', float('nan')):.3f}.</p>",
        "<h2>Flows</h2>" + html_table(flow_view(result.flows)),
        f"<h2>{_links_heading(names)}</h2>" + html_table(link_view(shown, result.trace_capacity())),
        "<h2>Throughput and delay</h2>" + _image(report_figures.throughput_delay_scatter(result.flows), _SCATTER_ALT),
        "<h2>Over time</h2>" + _image(plots.overview(result, links=names), plots.describe_overview(result, links=names)),
        "<h2>Scenario</h2><pre>" + html.escape(result.scenario_toml) + "</pre>",
    ]
    return "\n".join(parts), f"tcplab report: {name}"


# ----- a sweep -----


def _sweep_sections(sweep: SweepResult, chosen: str | None, names: list[str] | None) -> tuple[str, str]:
    manifest = sweep.manifest
    plan = manifest["plan"]
    name = plan["scenario"].get("name") or "sweep"
    parts = [_sweep_overview(sweep)]
    if sweep.runs.empty:
        parts.append("<p class=\"failure\">No run of this sweep has finished yet: there is nothing to summarise.</p>")
    else:
        varied = links_named_by(plan["scenario"], [key for p in plan["parameters"] for key in p["keys"]])
        entities = _sweep_links(sweep, names, varied)
        aggregate = report_figures.with_flow_labels(sweep.aggregate, sweep.flows, sweep.labels)
        parts.append(_sweep_tables(sweep, aggregate, entities, names))
        parts.append(_sweep_figures(sweep, aggregate, entities))
        parts.append("<h2>Throughput and delay</h2>" + _image(report_figures.throughput_delay_scatter(sweep.flows), _SCATTER_ALT))
        for point, run in _shown_runs(sweep, chosen):
            values = manifest["points"][point]["values"]
            described = ", ".join(f"{k} = {v}" for k, v in values.items()) or "the scenario"
            result = _run_of_sweep(sweep, point, run)
            parts.append(f"<h2>Over time: point {point} ({html.escape(described)}), run {run}</h2>")
            parts.append(_image(plots.overview(result, links=names, varied=varied),
                                plots.describe_overview(result, links=names, varied=varied)))
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


def _sweep_links(sweep: SweepResult, names: list[str] | None, varied: list[str]) -> list[str]:
    """The link directions ("link direction", as the aggregate's entities) the tables and figures
    show: those ``names`` chooses, or those congested in any run and those the sweep varies; of a
    link with no congested direction, its busier one. The busiest direction when none is."""
    links = sweep.links
    congested = links[plots.congested(links)]
    wanted = names or varied
    if names:
        congested = congested[congested["link"].isin(names)]
    keys = set(zip(congested["link"], congested["direction"]))
    for name in wanted:
        of_link = links[links["link"] == name]
        if not of_link.empty and not any(link == name for link, _ in keys):
            keys.add((name, of_link.groupby("direction")["utilization"].mean().idxmax()))
    if not keys:
        busiest = links.groupby(["link", "direction"], sort=False)["utilization"].mean().idxmax()
        keys.add(busiest)
    in_table_order = links.drop_duplicates(["link", "direction"])
    return [f"{link} {direction}" for link, direction in zip(in_table_order["link"], in_table_order["direction"])
            if (link, direction) in keys]


def _links_heading(names: list[str] | None) -> str:
    return "Links chosen with --links" if names else "Congested links"


def _sweep_tables(sweep: SweepResult, aggregate: pd.DataFrame, entities: list[str], names: list[str] | None) -> str:
    labels = sweep.labels
    flows = aggregate[(aggregate["table"] == "flows") & aggregate["metric"].isin(FLOW_METRICS)]
    if sweep.flows["completion_time_s"].isna().all():
        flows = flows[flows["metric"] != "completion_time_s"]
    links = aggregate[(aggregate["table"] == "links") & aggregate["metric"].isin(LINK_METRICS)]
    links = links[links["entity"].isin(entities)]
    heading = "mean over runs [95% confidence interval, clipped to the metric's domain]"
    return (
        f"<h2>Flows: {heading}</h2>" + html_table(pivot(flows, labels)) + few_runs_note(flows)
        + f"<h2>{_links_heading(names)}: {heading}</h2>" + html_table(pivot(links, labels)) + few_runs_note(links)
    )


def _sweep_figures(sweep: SweepResult, aggregate: pd.DataFrame, entities: list[str]) -> str:
    labels = sweep.labels
    order = {p["label"]: p["values"] for p in sweep.manifest["plan"]["parameters"]}
    flows = ", ".join(dict.fromkeys(aggregate.loc[aggregate["table"] == "flows", "entity"]))
    parts = []
    for parameter in labels:
        if len(order[parameter]) < 2:
            continue
        others = [label for label in labels if label != parameter]
        parts.append(f"<h2>Against {html.escape(parameter)}</h2>")
        for table, metrics in [("flows", FLOW_METRICS[:2]), ("links", LINK_METRICS[:2])]:
            rows = aggregate[aggregate["table"] == table]
            if table == "links":
                rows = rows[rows["entity"].isin(entities)]
            for metric in metrics:
                if not (rows["metric"] == metric).any():
                    continue
                figure = report_figures.metric_against_parameter(rows, metric, parameter, order[parameter], others)
                what = f"flows {flows}" if table == "flows" else "link directions " + ", ".join(entities)
                alt = (f"{report_figures.METRICS[metric][0]} against {parameter} ({', '.join(map(str, order[parameter]))}): "
                       f"mean over runs with 95% confidence bars, for {what}")
                parts.append(_image(figure, alt))
    return "\n".join(parts)


def _shown_runs(sweep: SweepResult, chosen: str | None) -> list[tuple[int, int]]:
    """The runs whose time series the report shows: the chosen one; else, when the sweep varies
    ``algorithm`` (``tcplab compare``), the first finished run of each algorithm, so each gets
    its panel; else the first finished run."""
    if chosen is not None or ALGORITHM_LABEL not in sweep.labels:
        return [_chosen_run(sweep, chosen)]
    shown: dict[Any, tuple[int, int]] = {}
    for point, run in sorted(sweep.store.done()):
        shown.setdefault(sweep.manifest["points"][point]["values"][ALGORITHM_LABEL], (point, run))
    return list(shown.values())


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
    # The run's scenario, so the plots find its trace links (a scenario-file sweep keeps none).
    plan = sweep.store.plan
    scenario = "" if plan.files else tomli_w.dumps(plan.scenario_for(values, run))
    return Result(
        summary=summary,
        flows=rows_of(sweep.flows),
        links=rows_of(sweep.links),
        timeseries=rows_of(sweep.timeseries),
        queues=rows_of(sweep.queues),
        events=rows_of(sweep.events),
        scenario_toml=scenario,
    )


def _image(figure, alt: str) -> str:
    """The figure as an inline PNG; ``alt`` says what it shows, for readers who cannot see it."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f"<img alt=\"{html.escape(alt)}\" src=\"data:image/png;base64,{encoded}\">"
