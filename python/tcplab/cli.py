"""The ``tcplab`` command: run, validate and list algorithms."""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

from tcplab import __version__

EXIT_USAGE = 2
EXIT_INTERNAL = 70


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tcplab",
        description="A congestion-control laboratory: run TCP scenarios on a fast deterministic simulator.",
    )
    parser.add_argument("--version", action="version", version=f"tcplab {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser("run", help="run a scenario, print a summary, write results and plots")
    run.add_argument("scenario", help="scenario TOML file")
    run.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                     help="override a scenario key, e.g. --set topology.bottleneck.rate=25Mbps (repeatable)")
    run.add_argument("--out", type=Path, help="results directory (default: results/<scenario name>)")
    run.add_argument("--seed", type=int, help="random seed (overrides simulation.seed)")
    run.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    run.add_argument("--quiet", action="store_true", help="print nothing but errors")

    validate = commands.add_parser("validate", help="check a scenario and print it with every default filled in")
    validate.add_argument("scenario", help="scenario TOML file")
    validate.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                          help="override a scenario key (repeatable)")
    validate.add_argument("--quiet", action="store_true", help="only report errors")

    algorithms = commands.add_parser("algorithms", help="list congestion control algorithms and their parameters")
    algorithms.add_argument("name", nargs="?", help="show only this algorithm")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from tcplab import ScenarioError

    try:
        if args.command == "run":
            return _run(args)
        if args.command == "validate":
            return _validate(args)
        return _algorithms(args)
    except ScenarioError as error:
        print(f"error: {error.args[0]}", file=sys.stderr)
        return EXIT_USAGE
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


def _overrides(args: argparse.Namespace) -> dict:
    from tcplab.scenario import parse_override

    return dict(parse_override(item) for item in args.overrides)


def _run(args: argparse.Namespace) -> int:
    import tcplab
    from tcplab import plots
    from tcplab.scenario import load_scenario

    overrides = _overrides(args)
    if args.seed is not None:
        overrides["simulation.seed"] = args.seed
    scenario = load_scenario(args.scenario)
    started = time.monotonic()
    result = tcplab.run(scenario, set=overrides, progress=not args.quiet)
    wall = time.monotonic() - started

    name = result.summary.get("scenario") or Path(args.scenario).stem
    out = args.out or Path("results") / _safe(name)
    files = result.save(out)
    if not args.no_plots:
        files += plots.save_all(result, out)
    if not args.quiet:
        _print_summary(result, wall)
        print(f"results: {out}/ ({', '.join(p.name for p in files)})")
    return 0


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "run"


def _print_summary(result, wall_seconds: float) -> None:
    from rich.console import Console
    from rich.table import Table

    # Piped output has no terminal width; give tables room instead of wrapping every cell.
    console = Console() if sys.stdout.isatty() else Console(width=140)
    s = result.summary
    console.print(
        f"[bold]{s.get('scenario') or 'scenario'}[/bold]: {s['simulated_seconds']:.1f} s simulated in {wall_seconds:.2f} s "
        f"(seed {s['seed']}, run {s['run']}, {s['events']:,} events); Jain's fairness {s['jain_fairness']:.3f}"
    )
    flows = Table(title="flows", title_justify="left")
    for column, justify in [("flow", "left"), ("cc", "left"), ("goodput Mb/s", "right"), ("retx", "right"), ("timeouts", "right"),
                            ("fast rec.", "right"), ("RTT mean ms", "right"), ("RTT p95 ms", "right"), ("done in s", "right")]:
        flows.add_column(column, justify=justify)
    for row in result.flows.itertuples():
        flows.add_row(
            row.name, row.cc or row.protocol, f"{row.goodput_bps / 1e6:.2f}", str(row.retransmitted_segments), str(row.timeouts),
            str(row.fast_recoveries), _fmt(row.rtt_mean_ms), _fmt(row.rtt_p95_ms), _fmt(row.completion_time_s, "{:.3f}"),
        )
    console.print(flows)
    links = Table(title="busiest links", title_justify="left")
    for column in ["link", "direction", "rate", "buffer", "utilization", "drops", "marks", "queue delay mean ms", "p95 ms"]:
        links.add_column(column, justify="left" if column in ("link", "direction", "buffer") else "right")
    busiest = result.links.sort_values(["utilization", "queue_drops"], ascending=False).head(4)
    for row in busiest.itertuples():
        links.add_row(
            row.link, row.direction, f"{row.rate_bps / 1e6:g} Mb/s", row.buffer, f"{row.utilization:.1%}",
            str(row.queue_drops + row.aqm_drops + row.wire_losses), str(row.ecn_marks),
            _fmt(row.queue_delay_mean_ms), _fmt(row.queue_delay_p95_ms),
        )
    console.print(links)


def _fmt(value: float, pattern: str = "{:.1f}") -> str:
    return "-" if value != value else pattern.format(value)


def _validate(args: argparse.Namespace) -> int:
    import tcplab

    resolved = tcplab.validate(args.scenario, **{k.replace(".", "__"): v for k, v in _overrides(args).items()})
    if not args.quiet:
        print(f"# {args.scenario} is valid; resolved with every default:")
        print(resolved, end="")
    return 0


def _algorithms(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    import tcplab
    from tcplab import ScenarioError

    registry = tcplab.algorithms()
    if args.name:
        registry = [a for a in registry if a["name"] == args.name]
        if not registry:
            known = ", ".join(a["name"] for a in tcplab.algorithms())
            raise ScenarioError(f"unknown algorithm '{args.name}'; available: {known}", "algorithm", "unknown")
    console = Console()
    for algorithm in registry:
        console.print(f"[bold]{algorithm['name']}[/bold]: {algorithm['summary']}\n  source: {algorithm['source']}")
        if algorithm["params"]:
            table = Table(show_edge=False, pad_edge=False)
            for column in ["parameter", "default", "unit", "range", "meaning"]:
                table.add_column(column)
            for p in algorithm["params"]:
                table.add_row(p["name"], p["default"], p["unit"], p["range"], p["description"])
            console.print(table)
        console.print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
