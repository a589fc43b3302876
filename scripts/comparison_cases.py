"""What the engine comparisons (ns2_comparison.py, ns3_comparison.py) share: the command line that
chooses their cases, and the summary table that keeps the rows of the cases not rerun."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable

import pandas as pd


def choose(description: str, quick_help: str, default_out: Path,
           cases: Callable[[bool], dict[str, Any]]) -> tuple[argparse.Namespace, dict[str, Any], list[str]] | None:
    """(arguments, every case, the chosen names), or None after naming an unknown case."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--case", action="append", help="run only this case (repeatable)")
    parser.add_argument("--out", type=Path, default=default_out)
    args = parser.parse_args()
    everything = cases(args.quick)
    chosen = args.case or list(everything)
    unknown = [c for c in chosen if c not in everything]
    if unknown:
        print(f"unknown case {', '.join(unknown)}; the cases are: {', '.join(everything)}", file=sys.stderr)
        return None
    return args, everything, chosen


def save_summary(frame: pd.DataFrame, args: argparse.Namespace, chosen: list[str]) -> tuple[Path, pd.DataFrame]:
    """Writes comparison.csv (comparison-quick.csv with --quick); a run of some cases keeps the
    others' rows. Returns the path and the whole table."""
    summary = args.out / ("comparison-quick.csv" if args.quick else "comparison.csv")
    if args.case and summary.exists():
        frame = pd.concat([pd.read_csv(summary).query("case not in @chosen"), frame], ignore_index=True)
    frame.to_csv(summary, index=False)
    return summary, frame
