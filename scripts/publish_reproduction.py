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


VERDICTS = ("reproduced", "partly", "not reproduced", "not testable here")
# The index's account of the rules in python/tcplab/reproduce/verdicts.py.
RULES = """## How a verdict is reached

The rules are written once, in `python/tcplab/reproduce/verdicts.py`, and every report uses them:

- Each claim has one **headline**: the quantity or ordering the paper states first. Other parts
  of the statement (a magnitude beside an ordering, a second profile) are **secondary**. A
  statement that joins two independent results is split into two claims.
- Every part is a check against a bound the report states (for example "gain within 20% to 50%"
  for "about 33%"). A check on a measured quantity is judged over the **95% confidence interval
  of the mean over the runs** (Student's t): it *holds* when the whole interval is on the right
  side of the bound, *fails* when the whole interval is on the wrong side, and is *undecided*
  when the interval straddles it. Counts and runs without a random element are exact.
- **reproduced**: the headline and every secondary part hold.
- **partly**: the headline holds and a secondary part fails or is undecided.
- **not reproduced**: the headline fails.
- **not testable here**: the setting cannot decide the claim, with the reason (a window that caps
  the rate, a difference smaller than one packet's serialisation), or the runs' interval straddles
  the headline's bound: more runs, or another setting, would be needed.
- Every number is the mean over the runs ± the half width of that interval, with the number of
  runs. Run r of every point of a sweep uses the same random streams (the run index selects
  them), so a difference between two points is estimated from the per-run differences.
- Where the paper's own simulator runs the same scenario file (ns-2.35 for ADC and the CTCP study,
  ns-3 3.44 for TCP-do and TCP-RTA), the report has a column with its numbers, and each claim says
  which verdict the same headline gets on that engine.
- A claim whose verdict differs from the last committed report says why: the rules (the same
  checks judged by the earlier rule, "every check held: reproduced; some: partly; none: not
  reproduced", give the earlier verdict), or new numbers (the report lists the model and profile
  changes made before the run).

The rules and every claim's bounds were committed before the runs whose reports are here.
"""


def verdict_counts(paper: str) -> dict[str, int]:
    with (DOCS / paper / "claims.csv").open() as handle:
        verdicts = [row["verdict"] for row in csv.DictReader(handle)]
    return {v: verdicts.count(v) for v in VERDICTS}


def write_index() -> Path:
    lines = [
        "# Reproductions",
        "",
        "Full runs of `tcplab reproduce PAPER`, committed with their figures, numbers (CSV) and verdicts.",
        "Each report states the paper's setup, every choice tcplab made where the paper is silent, the",
        "published numbers beside tcplab's, and a verdict per claim with its criterion. A claim that does",
        "not reproduce is a finding: the report gives the numbers.",
        "",
        RULES,
        "| paper | report | " + " | ".join(VERDICTS) + " |",
        "|---|---|" + "---:|" * len(VERDICTS),
    ]
    for report in sorted(DOCS.glob("*.md")):
        if report.name == "README.md" or not (DOCS / report.stem / "claims.csv").is_file():
            continue
        title = report.read_text().splitlines()[0].removeprefix("# Reproduction: ")
        counts = verdict_counts(report.stem)
        lines.append(f"| {title} | [{report.name}]({report.name}) | " + " | ".join(str(counts[v]) for v in VERDICTS) + " |")
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
