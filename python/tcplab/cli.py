"""The ``tcplab`` command: run, validate, sweep, compare, report, reproduce, trace, and list algorithms."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import sys
import time
from pathlib import Path

from tcplab import __version__, _core, cli_backends, cli_options
from tcplab.api import BACKENDS, SWEEP_BACKENDS

EXIT_USAGE = 2
EXIT_INTERNAL = 70
# The Linux back-end could not run here, or a host's process failed (sysexits' EX_UNAVAILABLE).
EXIT_BACKEND = 69


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tcplab",
        description="A congestion-control laboratory: run TCP scenarios on a fast deterministic simulator.",
    )
    parser.add_argument("--version", action="version", version=f"tcplab {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser("run", help="run a scenario, print a summary, write results (and plots with --plots)")
    run.add_argument("scenario", help="scenario TOML file")
    cli_options.add_set(run)
    cli_options.add_duration(run)
    cli_options.add_out(run, "results directory (default: results/<scenario name>)")
    run.add_argument("--seed", type=int, help="random seed (overrides simulation.seed)")
    run.add_argument("--plots", action="store_true",
                     help="also draw PNG plots (takes a second or two: matplotlib and pandas load)")
    run.add_argument("--no-plots", dest="plots", action="store_false",
                     help="no plots (the default; kept for scripts written when plots were drawn by default)")
    run.add_argument("--smooth", metavar="DURATION", help="with --plots: goodput as a trailing mean over DURATION, e.g. 2s "
                     "(default: max(1 s, 10 samples)); 0: as sampled, repair bursts and all")
    cli_options.add_links(run, "with --plots: ")
    run.add_argument("--csv", action="store_true", help="also write each table as CSV")
    run.add_argument("--json", action="store_true",
                     help="print a JSON summary (run, flows, links) on standard output and nothing else")
    run.add_argument("--quiet", action="store_true", help="print nothing but errors")
    run.add_argument("--backend", choices=list(BACKENDS), default="simulator",
                     help="simulator (default); linux: kernel TCP between network namespaces, tcplab's link "
                     "emulator between them (root; takes the scenario's duration in real time); ns2: Debian's "
                     "ns-2.35 runs the scenario as a TCL script (docs/ns2-backend.md); ns3: ns-3 3.44 from the ns3 wheel "
                     "(docs/ns3-backend.md)")

    validate = commands.add_parser("validate", help="check a scenario and print it with every default filled in")
    validate.add_argument("scenario", help="scenario TOML file")
    cli_options.add_set(validate)
    cli_options.add_duration(validate)
    validate.add_argument("--quiet", action="store_true", help="only report errors")

    algorithms = commands.add_parser("algorithms", help="list congestion control algorithms and their parameters")
    algorithms.add_argument("name", nargs="?", help="show only this algorithm")
    _add_sweep_parsers(commands)
    _add_paper_parsers(commands)
    cli_backends.add_parsers(commands)
    return parser


def _add_paper_parsers(commands) -> None:
    from tcplab.traces import cellular_defaults

    parameters = ", ".join(f"{name} = {value}" for name, value in cellular_defaults().items())
    trace = commands.add_parser(
        "trace", help="generate a 5G-like delivery trace in mahimahi's format (docs/traces.md)",
        description="Writes one line per delivery opportunity (1500 bytes), in milliseconds, as mahimahi's mm-link "
        f"reads them. The cellular generator's parameters and their defaults (set with --set): {parameters}. "
        "docs/traces.md says what each means.",
    )
    trace.add_argument("model", choices=["cellular"], help="the generator")
    trace.add_argument("--out", type=Path, required=True, help="the trace file to write")
    trace.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                       help="a generator parameter, e.g. --set nr_off_mean=0s (repeatable)")
    trace.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    trace.add_argument("--plot", type=Path, metavar="PNG", help="also draw the capacity over time")
    from tcplab.reproduce import PAPERS

    papers = ", ".join(PAPERS)
    reproduce = commands.add_parser(
        "reproduce", help="run a paper's experiments and report them beside the published numbers",
        description=f"Papers: {papers}, or all. Writes report.md, report.html, numbers.csv, claims.csv, "
        "figures and each experiment's sweep to --out.",
    )
    reproduce.add_argument("paper", help=f"{papers} or all")
    reproduce.add_argument("--quick", action="store_true", help="shortened runs that finish in a few minutes")
    reproduce.add_argument("--runs", type=int, help="runs per point (default: the paper's, or 1 with --quick)")
    reproduce.add_argument("--out", type=Path, help="output directory (default: results/reproduce-<paper>)")
    reproduce.add_argument("--workers", type=int, help="local Dask worker processes (default: one per core)")
    reproduce.add_argument("--scheduler", metavar="ADDRESS", help="use a running Dask scheduler")
    reproduce.add_argument("--quiet", action="store_true", help="print nothing but errors")


def _add_sweep_parsers(commands) -> None:
    sweep = commands.add_parser(
        "sweep",
        help="run a scenario over varied parameters and repeated runs, on Dask",
        description="Runs every point (the Cartesian product of the --vary lists, or with --zip the lists paired "
        "position by position) --runs times; run r of a point sets simulation.run = r. Results stream into "
        "--out as Parquet datasets; an interrupted sweep resumes with --resume DIR.",
    )
    sweep.add_argument("scenarios", nargs="*", metavar="FILE", help="scenario TOML file; several files are varied too")
    sweep.add_argument("--vary", action="append", default=[], metavar="KEY=V1,V2",
                       help="a key and its values, e.g. --vary topology.bottleneck.buffer=1BDP,4BDP (repeatable)")
    sweep.add_argument("--runs", type=int, help="runs per point (default: the [sweep] table's, else 1)")
    sweep.add_argument("--zip", action="store_true", default=None, help="pair the --vary lists instead of crossing them")
    sweep.add_argument("--resume", type=Path, metavar="DIR", help="finish an interrupted sweep in DIR")
    _add_execution_options(sweep)
    compare = commands.add_parser("compare", help="run a scenario once per algorithm on every TCP flow, and compare")
    compare.add_argument("scenario", help="scenario TOML file")
    names = ", ".join(algorithm["name"] for algorithm in _core.algorithms())
    compare.add_argument("--cc", required=True, metavar="A,B,...",
                         help=f"algorithms to compare, e.g. cubic,bbr,roccet; built in: {names} "
                         "(tcplab algorithms NAME: its parameters)")
    compare.add_argument("--runs", type=int, default=1, help="runs per algorithm (default 1)")
    _add_execution_options(compare)
    report = commands.add_parser("report", help="write one self-contained HTML report of a run or a sweep directory")
    report.add_argument("directory", type=Path, metavar="DIR", help="a directory written by tcplab run, sweep or compare")
    report.add_argument("--out", type=Path, help="the HTML file (default: DIR/report.html)")
    report.add_argument("--run", metavar="POINT:RUN", help="the sweep run whose time series is shown (default: the first)")
    cli_options.add_links(report)


def _add_execution_options(parser: argparse.ArgumentParser) -> None:
    cli_options.add_set(parser, "override a scenario key at every point (repeatable)")
    cli_options.add_duration(parser)
    parser.add_argument("--workers", type=int, help="local Dask worker processes (default: one per core)")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="use a running Dask scheduler, e.g. tcp://host:8786")
    cli_options.add_out(parser, "results directory (default: results/<scenario name>-<command>)")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    parser.add_argument("--backend", choices=list(SWEEP_BACKENDS), default="simulator",
                        help="where every run executes: tcplab's simulator (default), ns-2.35 or ns-3 3.44")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    import warnings

    from tcplab.scenario import ScenarioWarning

    with warnings.catch_warnings():
        # A scenario warning is one line on standard error, without Python's file and line.
        warnings.showwarning = lambda message, category, *_: print(
            f"warning: {message}" if issubclass(category, ScenarioWarning) else f"warning: {category.__name__}: {message}",
            file=sys.stderr,
        )
        return _dispatch(args)


def _dispatch(args: argparse.Namespace) -> int:
    """Runs the command; every error becomes a message and an exit code, never a traceback."""
    from tcplab import ScenarioError

    try:
        if args.command == "run":
            return _run(args)
        if args.command == "validate":
            return _validate(args)
        if args.command == "sweep":
            return _sweep(args)
        if args.command == "compare":
            return _compare(args)
        if args.command == "report":
            return _report(args)
        if args.command == "trace":
            return _trace(args)
        if args.command == "compare-backends":
            with _terminate_as_interrupt():
                return cli_backends.compare_backends_command(args, _overrides(args), _default_out)
        if args.command == "lab":
            return cli_backends.lab_command(args)
        if args.command == "reproduce":
            from tcplab.reproduce.command import reproduce_command

            return reproduce_command(args)
        return _algorithms(args)
    except ScenarioError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except _backend_errors() as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BACKEND
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except OSError as error:
        print(f"error: {error.filename or ''}: {error.strerror}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # noqa: BLE001 - last resort: no traceback unless asked for
        if os.environ.get("TCPLAB_DEBUG"):
            raise
        print(f"internal error: {type(error).__name__}: {error}\n(set TCPLAB_DEBUG=1 for the traceback, and please report it)",
              file=sys.stderr)
        return EXIT_INTERNAL


def _backend_errors() -> tuple[type, ...]:
    """The back-ends' errors, imported only once one may have happened (a run on a back-end has
    loaded its module already)."""
    errors: tuple[type, ...] = ()
    module = sys.modules.get("tcplab.backends.linux")
    if module is not None:
        from tcplab.backends.linux.lab import LabError

        errors += (module.BackendUnavailable, module.EndpointFailed, module.BpfBuildError, module.BpfLoadError, LabError)
    ns2 = sys.modules.get("tcplab.backends.ns2")
    if ns2 is not None:
        errors += (ns2.Ns2Unavailable, ns2.Ns2Failed)
    ns3 = sys.modules.get("tcplab.backends.ns3")
    if ns3 is not None:
        errors += (ns3.Ns3Unavailable, ns3.Ns3Failed)
    return errors


def _overrides(args: argparse.Namespace) -> dict:
    from tcplab.scenario import parse_override

    overrides = dict(parse_override(item) for item in args.overrides)
    overrides.update(cli_options.duration_override(args))
    return overrides


def _run(args: argparse.Namespace) -> int:
    import tcplab
    from tcplab.scenario import load_scenario

    smooth_s = cli_options.smoothing(args.smooth)
    overrides = _overrides(args)
    if args.seed is not None:
        overrides["simulation.seed"] = args.seed
    scenario = load_scenario(args.scenario)
    quiet = args.quiet or args.json
    started = time.monotonic()
    with _terminate_as_interrupt():
        result = tcplab.run(scenario, set=overrides, progress=not quiet, backend=args.backend)
    wall = time.monotonic() - started

    name = result.summary.get("scenario") or Path(args.scenario).stem
    out = args.out or Path("results") / _safe(name)
    files = result.save(out, csv=args.csv)
    if args.plots:
        from tcplab import output_folder, plots

        files += plots.save_all(result, out, smooth_s, cli_options.links(args.links, result.links))
        output_folder.record(out, files)
    if args.json:
        _print_json(result, out)
    elif not quiet:
        _print_summary(result, wall)
        print(f"results: {out}/ ({', '.join(p.name for p in files)})")
        if not args.plots:
            print("plots: add --plots, or open the tables with tcplab.Result / tcplab report")
    return 0


@contextlib.contextmanager
def _terminate_as_interrupt():
    """SIGTERM ends a run as Ctrl-C does: clean-up code runs (the Linux back-end removes its
    namespaces and processes) and the exit status is 130."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _print_json(result, out: Path) -> None:
    """The run's summary, flows and links as one JSON document (as iperf3 -J)."""
    import json

    from tcplab.result import jsonable_row

    document = {
        "summary": jsonable_row(result.summary),
        "flows": [jsonable_row(row) for row in result.records("flows")],
        "links": [jsonable_row(row) for row in result.records("links")],
        "results_directory": str(out),
    }
    print(json.dumps(document, indent=2, allow_nan=False))


def _safe(name: str) -> str:
    """A scenario's name as one folder name inside results/: never empty, never '.' or '..' (which
    would write into results/ itself or beside it), never with a path separator, and at most 100
    characters (file systems refuse names above 255 bytes)."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.")[:100].strip("-.")
    return cleaned or "run"


# The run summary's flows table lists at most this many flows (a fabric runs thousands).
SUMMARY_FLOWS = 20


def _print_summary(result, wall_seconds: float) -> None:
    from rich.table import Table

    from tcplab.traces import describe_capacity
    from tcplab.transfers import completion

    console = _console(140)
    s = result.summary
    if s.get("backend") == "linux":
        console.print(
            f"[bold]{s.get('scenario') or 'scenario'}[/bold]: {s['simulated_seconds']:.1f} s on Linux {s['kernel']} "
            f"(kernel TCP; tcplab's link emulator, late by {s['emulator_lateness_p99_ms']:.3f} ms at p99), "
            f"{wall_seconds:.1f} s in all; Jain's fairness {s['jain_fairness']:.3f}"
        )
    elif s.get("backend") in ("ns2", "ns3"):
        console.print(
            f"[bold]{s.get('scenario') or 'scenario'}[/bold]: {s['simulated_seconds']:.1f} s simulated by "
            f"{s['engine']} in {s['engine_wall_seconds']:.2f} s (seed {s['seed']}, run {s['run']}); "
            f"Jain's fairness {s['jain_fairness']:.3f}"
        )
    else:
        console.print(
            f"[bold]{s.get('scenario') or 'scenario'}[/bold]: {s['simulated_seconds']:.1f} s simulated in "
            f"{wall_seconds:.2f} s (seed {s['seed']}, run {s['run']}, {s['events']:,} events); "
            f"Jain's fairness {s['jain_fairness']:.3f}"
        )
    all_rows = result.records("flows")
    flow_rows = [row for row in all_rows if row["protocol"] == "tcp"]
    flows = Table(title="flows", title_justify="left")
    # Names keep their full width; when the terminal is narrow the numeric columns' headers wrap.
    flows.add_column("flow", min_width=max((len(r["name"]) for r in flow_rows), default=4), no_wrap=True)
    flows.add_column("cc", min_width=max((len(r["cc"] or r["protocol"]) for r in flow_rows), default=2), no_wrap=True)
    for column in ["goodput Mb/s", "retx", "timeouts", "fast rec.", "RTT mean ms", "RTT p95 ms", "completion"]:
        flows.add_column(column, justify="right", overflow="fold")
    for row in flow_rows[:SUMMARY_FLOWS]:
        flows.add_row(
            row["name"], row["cc"] or row["protocol"], f"{row['goodput_bps'] / 1e6:.2f}", str(row["retransmitted_segments"]),
            _fmt(row["timeouts"], "{:.0f}"), _fmt(row["fast_recoveries"], "{:.0f}"), _fmt(row["rtt_mean_ms"]),
            _fmt(row["rtt_p95_ms"]), completion(row),
        )
    if len(flow_rows) > SUMMARY_FLOWS:
        goodputs = sorted(row["goodput_bps"] / 1e6 for row in flow_rows)
        flows.caption = (f"the first {SUMMARY_FLOWS} of {len(flow_rows):,} TCP flows (all in flows.parquet); goodput over all: "
                         f"min {goodputs[0]:.2f}, median {goodputs[len(goodputs) // 2]:.2f}, max {goodputs[-1]:.2f} Mb/s")
        flows.caption_justify = "left"
    if flow_rows:
        console.print(flows)
    _print_udp_summary(console, [row for row in all_rows if row["protocol"] == "udp"])
    links = Table(title="busiest links", title_justify="left")
    # Stable sort, as pandas' sort_values: ties keep the table's order.
    busiest = sorted(result.records("links"), key=lambda r: (r["utilization"], r["queue_drops"]), reverse=True)[:4]
    links.add_column("link", min_width=max((len(r["link"]) for r in busiest), default=4), no_wrap=True)
    capacities = result.trace_capacity()
    for column in ["direction", "capacity", "buffer", "utilization", "drops", "marks", "queue delay mean ms", "p95 ms"]:
        links.add_column(column, justify="left" if column in ("direction", "buffer") else "right", overflow="fold")
    for row in busiest:
        links.add_row(
            row["link"], row["direction"], describe_capacity(row, capacities), row["buffer"], f"{row['utilization']:.1%}",
            str(row["queue_drops"] + row["aqm_drops"] + row["wire_losses"]), str(row["ecn_marks"]),
            _fmt(row["queue_delay_mean_ms"]), _fmt(row["queue_delay_p95_ms"]),
        )
    console.print(links)


def _print_udp_summary(console, rows: list[dict]) -> None:
    """UDP flows as iperf3 reports them: what arrived, what was lost, and the jitter."""
    from rich.table import Table

    if not rows:
        return
    table = Table(title="UDP flows", title_justify="left")
    table.add_column("flow", min_width=max(len(r["name"]) for r in rows), no_wrap=True)
    for column in ["goodput Mb/s", "sent", "lost", "loss", "jitter ms", "one-way p95 ms"]:
        table.add_column(column, justify="right", overflow="fold")
    for row in rows:
        table.add_row(row["name"], f"{row['goodput_bps'] / 1e6:.2f}", str(row["packets_sent"]), str(row["packets_lost"]),
                      _fmt(row["loss_ratio"] * 100, "{:.2f}%"), _fmt(row["jitter_ms"], "{:.3f}"),
                      _fmt(row["one_way_delay_p95_ms"]))
    console.print(table)


def _console(piped_width: int):
    """A console as wide as the terminal (or $COLUMNS); piped output without $COLUMNS gets
    `piped_width` columns instead of rich's 80, so tables do not wrap every cell. Cells wrap
    (overflow="fold") rather than end in "...", so no name is ever cut."""
    from rich.console import Console

    if sys.stdout.isatty() or os.environ.get("COLUMNS"):
        return Console()
    return Console(width=piped_width)


def _fmt(value: float, pattern: str = "{:.1f}") -> str:
    return "-" if value != value else pattern.format(value)


# Link directions `tcplab validate` describes before it summarises the rest (a dumbbell of 10,000
# flows has 40,002).
_VIEW_LINES = 40


def _validate(args: argparse.Namespace) -> int:
    import tcplab

    from tcplab.api import _prepare
    from tcplab.network_view import describe

    overrides = _overrides(args)
    resolved = tcplab.validate(args.scenario, set=overrides)
    if not args.quiet:
        print(f"# {args.scenario} is valid; resolved with every default:")
        print(resolved, end="")
        # Comments, so the output stays a scenario that runs as it is.
        print("\n# The links as they will run (BDP: the rate x the mean base RTT of the flows crossing the link):")
        lines = describe(_prepare(args.scenario, {}, overrides))
        for line in lines[:_VIEW_LINES]:
            print(f"#   {line}")
        if len(lines) > _VIEW_LINES:
            print(f"#   ... and {len(lines) - _VIEW_LINES} more link directions (tcplab.network_view.describe lists all)")
    return 0


def _algorithms(args: argparse.Namespace) -> int:
    """One line per algorithm; with a name (any case), its source and parameters."""
    import difflib

    from rich.table import Table

    import tcplab

    registry = tcplab.algorithms()
    console = _console(120)
    if not args.name:
        overview = Table(show_edge=False, pad_edge=False, box=None)
        overview.add_column("algorithm", no_wrap=True, style="bold")
        overview.add_column("what it is", overflow="fold")
        for algorithm in registry:
            overview.add_row(algorithm["name"], algorithm["summary"])
        console.print(overview)
        console.print(f"\n{len(registry)} algorithms; 'tcplab algorithms NAME' shows one's source and parameters")
        return 0
    chosen = [a for a in registry if a["name"].lower() == args.name.lower()]
    if not chosen:
        from tcplab.scenario import _error

        names = [a["name"] for a in registry]
        close = difflib.get_close_matches(args.name.lower(), names, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise _error("algorithm", f"unknown algorithm '{args.name}'; {hint}available: {', '.join(names)}")
    algorithm = chosen[0]
    console.print(f"[bold]{algorithm['name']}[/bold]: {algorithm['summary']}\n  source: {algorithm['source']}")
    if algorithm["params"]:
        table = Table(show_edge=False, pad_edge=False)
        longest = max(len(p["name"]) for p in algorithm["params"])
        table.add_column("parameter", min_width=longest, no_wrap=True)
        for column in ["default", "unit", "range", "meaning"]:
            table.add_column(column, overflow="fold")
        for p in algorithm["params"]:
            table.add_row(p["name"], p["default"], p["unit"], p["range"], p["description"])
        console.print(table)
    else:
        console.print("  no parameters")
    return 0


def _sweep(args: argparse.Namespace) -> int:
    from tcplab.scenario import _error
    from tcplab.sweeps import SweepStore, plan_from
    from tcplab.sweeps.plan import parse_vary

    if args.resume:
        if (args.scenarios or args.vary or args.runs is not None or args.zip or args.overrides or args.out
                or args.duration or args.backend != "simulator"):
            raise _error("--resume", "resumes a sweep as it was planned; give only the directory (and --workers or --scheduler)")
        store = SweepStore.open(args.resume)
    else:
        if not args.scenarios:
            raise _error("FILE", "a sweep needs a scenario file (or --resume DIR)")
        parameters = [parse_vary(item) for item in args.vary]
        plan = plan_from(args.scenarios, parameters, runs=args.runs, zip_values=args.zip, overrides=_overrides(args),
                         backend=args.backend)
        store = SweepStore.create(args.out or _default_out(plan.scenario, args.scenarios[0], "sweep"), plan)
    return _execute_sweep(store, args)


def _compare(args: argparse.Namespace) -> int:
    from tcplab.sweeps import SweepStore
    from tcplab.sweeps.plan import compare_plan, split_values

    from tcplab.report import write_report

    plan = compare_plan(args.scenario, split_values(args.cc), runs=args.runs, overrides=_overrides(args),
                        backend=args.backend)
    store = SweepStore.create(args.out or _default_out(plan.scenario, args.scenario, "compare"), plan)
    code = _execute_sweep(store, args)
    if code != 130:
        path = write_report(store.directory)
        if not args.quiet:
            print(f"report: {path}")
    return code


def _report(args: argparse.Namespace) -> int:
    from tcplab.report import write_report

    print(write_report(args.directory, out=args.out, run=args.run, links=args.links))
    return 0


def _trace(args: argparse.Namespace) -> int:
    from tcplab import traces

    times = traces.generate_cellular(_overrides(args), seed=args.seed)
    traces.write_mahimahi(times, args.out)
    starts, rates = traces.capacity_series(times)
    print(f"{args.out}: {len(times):,} opportunities over {times[-1] / 1e9:.1f} s, "
          f"mean {len(times) * 12e3 / times[-1] * 1e3:.1f} Mbit/s, 100 ms bins from {min(rates):.1f} to {max(rates):.1f} Mbit/s")
    if args.plot:
        print(f"plot: {traces.plot_capacity(times, args.plot)}")
    return 0


def _default_out(scenario: dict, path: str, command: str) -> Path:
    name = scenario.get("name") if isinstance(scenario.get("name"), str) else ""
    return Path("results") / f"{_safe(name or Path(path).stem)}-{command}"


def _execute_sweep(store, args: argparse.Namespace) -> int:
    """Runs the sweep's pending runs with a progress bar; prints failures and a per-point table."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from tcplab.sweeps import SweepResult, execute

    console = Console(stderr=True)
    progress = Progress(
        TextColumn("runs"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[failed]} failed"),
        TimeElapsedColumn(), TimeRemainingColumn(), console=console, disable=args.quiet,
    )
    task = progress.add_task("sweep", total=store.manifest["total_runs"], failed=0)
    failed = 0
    errors_seen: set[str] = set()

    def on_progress(done: int, total: int, error: str | None) -> None:
        nonlocal failed
        if error is not None:
            failed += 1
            if error not in errors_seen and not args.quiet:
                progress.console.print(f"[red]a run failed[/red] (the summary lists every failed run): {error}")
            errors_seen.add(error)
        progress.update(task, completed=done, failed=failed)

    started = time.monotonic()
    try:
        with progress:
            counts = execute(store, workers=args.workers, scheduler=args.scheduler, on_progress=on_progress)
    except KeyboardInterrupt:
        print(f"interrupted: {len(store.done())} of {store.manifest['total_runs']} runs are in {store.directory}; "
              f"finish with: tcplab sweep --resume {store.directory}", file=sys.stderr)
        return 130
    if not args.quiet:
        _print_sweep_summary(SweepResult(store.directory), counts, time.monotonic() - started)
    return 0 if counts["failed"] == 0 else 1


def _print_sweep_summary(result, counts: dict, wall_seconds: float) -> None:
    from rich.table import Table

    console = _console(160)
    console.print(f"{counts['finished']} runs finished, {counts['failed']} failed, in {wall_seconds:.1f} s; "
                  f"results: {result.directory}/")
    by_error: dict[str, list[str]] = {}
    for failure in sorted(result.manifest["failures"], key=lambda f: (f["point"], f["run"])):
        values = ", ".join(f"{k}={v}" for k, v in failure["values"].items())
        by_error.setdefault(failure["error"], []).append(f"point {failure['point']} run {failure['run']} ({values})")
    for error, runs in by_error.items():
        console.print(f"[red]failed[/red]: {'; '.join(runs)}\n  {error}")
    runs = result.runs
    if runs.empty:
        return
    from tcplab.sweeps.aggregate import FEW_RUNS

    table = Table(title="per point: mean over runs [95% CI, clipped to the metric's domain]", title_justify="left")
    for label in result.labels:
        table.add_column(label, overflow="fold")
    for column in ["runs", "total goodput Mb/s", "Jain's fairness"]:
        table.add_column(column, justify="right", overflow="fold")
    grouped = runs.groupby(result.labels, sort=False) if result.labels else [((), runs)]
    fewest = len(runs)
    for values, rows in grouped:
        values = values if isinstance(values, tuple) else (values,)
        fewest = min(fewest, len(rows))
        table.add_row(*map(str, values), str(len(rows)), _mean_ci(rows["total_goodput_bps"] / 1e6, "{:.2f}"),
                      _mean_ci(rows["jain_fairness"], "{:.3f}", upper=1.0))
    console.print(table)
    if 1 < fewest < FEW_RUNS:
        from scipy import stats

        console.print(f"note: intervals from fewer than {FEW_RUNS} runs are wide (t(0.975, n - 1) = "
                      f"{stats.t.ppf(0.975, fewest - 1):.1f} at n = {fewest}) and assume normally distributed runs")


def _mean_ci(values, pattern: str, upper: float = float("inf")) -> str:
    """Mean and its 95% t interval clipped to [0, upper], e.g. '12.30 [11.89, 12.71]'."""
    from scipy import stats

    values = values.dropna()
    if len(values) == 0:
        return "-"
    mean = pattern.format(values.mean())
    if len(values) < 2:
        return mean
    half = stats.t.ppf(0.975, len(values) - 1) * values.std() / len(values) ** 0.5
    low, high = max(values.mean() - half, 0.0), min(values.mean() + half, upper)
    return f"{mean} [{pattern.format(low)}, {pattern.format(high)}]"


if __name__ == "__main__":
    sys.exit(main())
