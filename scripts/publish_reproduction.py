"""Publishes full reproduction runs as docs/reproductions/<paper>.md and the index README.md.

    tcplab reproduce roccet --out docs/reproductions/roccet     # the full run (minutes)
    python3 scripts/publish_reproduction.py roccet [rta tcp-do ...]

The run's report.md becomes docs/reproductions/<paper>.md with its links pointing into the run's
folder (figures, numbers.csv, claims.csv, report.html); the sweeps' Parquet files stay out of git
(.gitignore), so links to them say how to make them again. The index lists every published paper
with its verdict counts, read from its claims.csv.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs" / "reproductions"


def publish(paper: str) -> Path:
    run = DOCS / paper
    text = (run / "report.md").read_text()
    text = re.sub(r"\]\((figures/|numbers\.csv|claims\.csv|report\.html)", lambda m: f"]({paper}/{m.group(1)}", text)
    text = text.replace("[sweeps/](sweeps/) (each with its own report.html)",
                        f"sweeps (their Parquet tables are not committed: `tcplab reproduce {paper}` makes them again)")
    target = DOCS / f"{paper}.md"
    target.write_text(text)
    return target


def verdict_counts(paper: str) -> dict[str, int]:
    with (DOCS / paper / "claims.csv").open() as handle:
        verdicts = [row["verdict"] for row in csv.DictReader(handle)]
    return {v: verdicts.count(v) for v in ("reproduced", "partly", "not reproduced")}


def write_index() -> Path:
    lines = [
        "# Reproductions",
        "",
        "Full runs of `tcplab reproduce PAPER`, committed with their figures, numbers (CSV) and verdicts.",
        "Each report states the paper's setup, every choice tcplab made where the paper is silent, the",
        "published numbers beside tcplab's, and a verdict per claim with its criterion. A claim that does",
        "not reproduce is a finding: the report gives the numbers.",
        "",
        "| paper | report | reproduced | partly | not reproduced |",
        "|---|---|---:|---:|---:|",
    ]
    for report in sorted(DOCS.glob("*.md")):
        if report.name == "README.md" or not (DOCS / report.stem / "claims.csv").is_file():
            continue
        title = report.read_text().splitlines()[0].removeprefix("# Reproduction: ")
        counts = verdict_counts(report.stem)
        lines.append(f"| {title} | [{report.name}]({report.name}) | {counts['reproduced']} | {counts['partly']} | "
                     f"{counts['not reproduced']} |")
    index = DOCS / "README.md"
    index.write_text("\n".join(lines) + "\n")
    return index


def main(papers: list[str]) -> int:
    for paper in papers:
        print(publish(paper))
    print(write_index())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
