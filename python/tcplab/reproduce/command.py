"""``tcplab reproduce PAPER|all [--quick] [--runs N] [--out DIR]``: runs a paper's experiments on
one Dask cluster, with a progress bar per sweep, and writes the report."""

from __future__ import annotations

import importlib
import shutil
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from tcplab.reproduce import PAPERS
from tcplab.reproduce.context import Reproduction
from tcplab.scenario import _error


def scenarios_folder(paper: str) -> Path:
    """scenarios/papers/<paper>/ of the tcplab checkout: from the working directory, or beside the
    package in a checkout (an editable install)."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[3]):
        candidate = root / "scenarios" / "papers" / paper
        if candidate.is_dir():
            return candidate
    raise _error("paper", f"cannot find scenarios/papers/{paper}/: run tcplab reproduce from the tcplab checkout")


def reproduce_command(args) -> int:
    if args.paper != "all" and args.paper not in PAPERS:
        raise _error("paper", f"unknown paper '{args.paper}'; available: {', '.join(PAPERS)}, or all")
    if args.runs is not None and not 1 <= args.runs <= 1000:
        raise _error("--runs", f"{args.runs} is not a number of runs: allowed 1 to 1000")
    papers = list(PAPERS) if args.paper == "all" else [args.paper]
    from tcplab.sweeps.runner import _client

    with ExitStack() as stack:
        client = _client(stack, args.workers, args.scheduler)
        for paper in papers:
            out = args.out / paper if (args.out and len(papers) > 1) else (args.out or Path("results") / f"reproduce-{paper}")
            report = run_paper(paper, quick=args.quick, runs=args.runs, out=out, client=client, quiet=args.quiet)
            if not args.quiet:
                print(f"report: {report}")
    return 0


def run_paper(paper: str, *, quick: bool, runs: int | None, out: Path, client, quiet: bool = False) -> Path:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from tcplab.reproduce import report

    module = importlib.import_module(PAPERS[paper])
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=Console(stderr=True), disable=quiet)
    tasks: dict[str, int] = {}

    def on_progress(name: str, done: int, total: int) -> None:
        if name not in tasks:
            tasks[name] = progress.add_task(f"{paper}: {name}", total=total)
        progress.update(tasks[name], completed=done)

    reproduction = Reproduction(paper, module.TITLE, quick, runs, out, scenarios_folder(paper), client, on_progress)
    started = time.monotonic()
    with progress:
        module.run(reproduction)
    command = "tcplab reproduce " + " ".join(a for a in sys.argv[2:]) if sys.argv[1:2] == ["reproduce"] else f"tcplab reproduce {paper}"
    return report.write(reproduction, command, time.monotonic() - started)
