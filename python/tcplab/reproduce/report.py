"""A reproduction's report: report.md (the paper's setup, tcplab's choices, numbers beside the
published ones, figures, a verdict per claim), the same as report.html, and numbers.csv and
claims.csv with every number and verdict the report states."""

from __future__ import annotations

import csv
import datetime
import subprocess
from pathlib import Path

from tcplab import __version__
from tcplab.reproduce.context import ENGINE_NAMES, Reproduction
from tcplab.reproduce.verdicts import VERDICTS

HTML_STYLE = """body{font-family:system-ui,sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem;line-height:1.45}
table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #bbb;padding:.25rem .5rem}
th{background:#eee}img{max-width:100%}code{background:#f4f4f4;padding:0 .2rem}
td.reproduced{background:#d8f0d8}td.partly{background:#fdf1c7}td.not-reproduced{background:#f6d2d2}
td.not-testable-here{background:#e4e4ee}"""


# Committed reports (docs/reproductions/) change no number: a run that rewrites them is not "dirty".
REPORTS_FOLDER = "docs/reproductions/"


def build_description() -> str:
    """tcplab's version and, in a checkout, its commit: which build made the numbers, and whether
    files other than committed reports had uncommitted changes."""
    try:
        def git(*args: str) -> str:
            return subprocess.run(["git", *args], capture_output=True, text=True, cwd=Path(__file__).parent,
                                  timeout=10).stdout

        commit = git("rev-parse", "--short", "HEAD").strip()
        # Porcelain lines are two status letters, a space and the path from the repository's root.
        changed = [line[3:] for line in git("status", "--porcelain", "--untracked-files=no").splitlines()]
        dirty = any(not path.startswith(REPORTS_FOLDER) for path in changed)
    except (OSError, subprocess.SubprocessError):
        commit, dirty = "", False
    if not commit:
        return f"tcplab {__version__}"
    return f"tcplab {__version__} (commit {commit}{', with uncommitted changes' if dirty else ''})"


def write(reproduction: Reproduction, command: str, wall_seconds: float) -> Path:
    out = reproduction.out
    engines = [e for e in ENGINE_NAMES if any(e in n.engines for n in reproduction.numbers)]
    _write_csv(out / "numbers.csv", ["experiment", "quantity", "condition", "unit", "published", "measured",
                                      "measured_low", "measured_high", "runs", "relative_difference", "source",
                                      *(f"{e}_measured" for e in engines)],
               [[n.experiment, n.quantity, n.condition, n.unit, "" if n.published is None else n.published,
                 repr(n.measured.mean), repr(n.measured.low), repr(n.measured.high), n.measured.runs,
                 "" if n.published is None else f"{n.relative_difference:.6g}", n.source,
                 *(repr(n.engines[e].mean) if e in n.engines else "" for e in engines)]
                for n in reproduction.numbers])
    _write_csv(out / "claims.csv", ["claim", "experiment", "verdict", "claim_text", "evidence", "engines",
                                     "previous", "change"],
               [[c.claim_id, c.experiment, c.verdict, c.text, c.evidence,
                 "; ".join(f"{e}: {v}" for e, v in c.engines.items()),
                 "" if c.was is None else f"{c.was[0]}: {c.was[1]}", c.change] for c in reproduction.claims])
    counts = {v: sum(c.verdict == v for c in reproduction.claims) for v in VERDICTS}
    form = ("quick form (shortened runs, fewer points: not the paper's statistics)" if reproduction.quick
            else "full form")
    header = [
        f"# Reproduction: {reproduction.title}",
        f"Made by `{command}` with {build_description()} on {datetime.date.today().isoformat()}, "
        f"{form}, "
        f"in {wall_seconds / 60:.1f} minutes. Every number below is in [numbers.csv](numbers.csv) and was "
        f"computed from the sweeps in [sweeps/](sweeps/) (each with its own report.html); every verdict is in "
        f"[claims.csv](claims.csv).",
        "**Verdicts:** " + ", ".join(f"{counts[v]} {v}" for v in VERDICTS) + f", of {len(reproduction.claims)} claims.",
        _claims_table(reproduction),
        RULES_PARAGRAPH,
    ]
    if reproduction.changes:
        header.append("## Changes since the last report\n\nModel and profile changes, made before this run, that "
                      "alter this paper's numbers:\n\n" + "\n".join(f"- {c}" for c in reproduction.changes))
    markdown_text = "\n\n".join(header + reproduction.parts) + "\n"
    (out / "report.md").write_text(markdown_text)
    (out / "report.html").write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{reproduction.title}</title>"
        f"<style>{HTML_STYLE}</style></head><body>{render_html(markdown_text)}</body></html>\n")
    return out / "report.md"


RULES_PARAGRAPH = (
    "**How to read the verdicts** (docs/reproductions/README.md): a claim's headline is the quantity or ordering "
    "the paper states first; it is judged over the 95% confidence interval of the runs' mean. *reproduced*: the "
    "headline and every secondary part hold; *partly*: the headline holds, a secondary part does not; *not "
    "reproduced*: the headline fails; *not testable here*: the setting cannot decide the claim (the reason is "
    "given), or the runs' interval straddles the headline's bound. Numbers are the mean over the runs ± the "
    "half width of that interval. Run r of every point of a sweep uses the same random streams (the run index "
    "selects them), so differences between points are estimated run by run.")


def _claims_table(reproduction: Reproduction) -> str:
    """One row per claim, linked to its evidence; engines that judged its headline; what changed."""
    rows = []
    for c in reproduction.claims:
        engines = "; ".join(f"{ENGINE_NAMES[e]}: {v}" for e, v in c.engines.items())
        rows.append(f"| [{c.claim_id}](#claim-{c.claim_id}) | {c.verdict} | {c.text} | {engines} | {c.change} |")
    return ("| claim | verdict | statement | the paper's engine | change since the last report |\n"
            "|---|---|---|---|---|\n" + "\n".join(rows))


def render_html(markdown_text: str) -> str:
    """report.md as HTML by CommonMark (markdown-it-py, with tables): a list right after a line of
    text is a list, as every Markdown viewer shows report.md, not part of the paragraph."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").render(markdown_text)
    # A table cell holding nothing but a verdict is coloured by it.
    for verdict in VERDICTS:
        html = html.replace(f"<td>{verdict}</td>", f'<td class="{verdict.replace(" ", "-")}">{verdict}</td>')
    return html


def _write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
