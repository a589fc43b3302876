"""A reproduction's report: report.md (the paper's setup, tcplab's choices, numbers beside the
published ones, figures, a verdict per claim), the same as report.html, and numbers.csv and
claims.csv with every number and verdict the report states."""

from __future__ import annotations

import csv
import datetime
import subprocess
from pathlib import Path

from tcplab import __version__
from tcplab.reproduce.context import Reproduction

HTML_STYLE = """body{font-family:system-ui,sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem;line-height:1.45}
table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #bbb;padding:.25rem .5rem}
th{background:#eee}img{max-width:100%}code{background:#f4f4f4;padding:0 .2rem}"""


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
    _write_csv(out / "numbers.csv", ["experiment", "quantity", "condition", "unit", "published", "measured",
                                      "relative_difference", "source"],
               [[n.experiment, n.quantity, n.condition, n.unit, "" if n.published is None else n.published,
                 repr(n.measured), "" if n.published is None else f"{n.relative_difference:.6g}", n.source]
                for n in reproduction.numbers])
    _write_csv(out / "claims.csv", ["claim", "experiment", "verdict", "claim_text", "evidence"],
               [[c.claim_id, c.experiment, c.verdict, c.text, c.evidence] for c in reproduction.claims])
    counts = {v: sum(c.verdict == v for c in reproduction.claims) for v in ("reproduced", "partly", "not reproduced")}
    form = ("quick form (shortened runs, fewer points: not the paper's statistics)" if reproduction.quick
            else "full form")
    header = [
        f"# Reproduction: {reproduction.title}",
        f"Made by `{command}` with {build_description()} on {datetime.date.today().isoformat()}, "
        f"{form}, "
        f"in {wall_seconds / 60:.1f} minutes. Every number below is in [numbers.csv](numbers.csv) and was "
        f"computed from the sweeps in [sweeps/](sweeps/) (each with its own report.html); every verdict is in "
        f"[claims.csv](claims.csv).",
        f"**Verdicts:** {counts['reproduced']} reproduced, {counts['partly']} partly, "
        f"{counts['not reproduced']} not reproduced, of {len(reproduction.claims)} claims.",
        "| claim | verdict | statement |\n|---|---|---|\n" + "\n".join(
            f"| {c.claim_id} | {c.verdict} | {c.text} |" for c in reproduction.claims),
    ]
    markdown_text = "\n\n".join(header + reproduction.parts) + "\n"
    (out / "report.md").write_text(markdown_text)
    (out / "report.html").write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{reproduction.title}</title>"
        f"<style>{HTML_STYLE}</style></head><body>{render_html(markdown_text)}</body></html>\n")
    return out / "report.md"


def render_html(markdown_text: str) -> str:
    """report.md as HTML by CommonMark (markdown-it-py, with tables): a list right after a line of
    text is a list, as every Markdown viewer shows report.md, not part of the paragraph."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render(markdown_text)


def _write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
