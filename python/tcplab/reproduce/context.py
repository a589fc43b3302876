"""What a paper's experiments use while they run: sweeps of the paper's scenarios on one Dask
client, the numbers measured beside the published ones, claims with verdicts, figures, and the
report's text in the order it is written."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

VERDICTS = ("reproduced", "partly", "not reproduced")


@dataclass
class Number:
    """One quantity: what the paper published (None: a figure shows it without a number) and what
    this build measured."""

    experiment: str
    quantity: str
    condition: str
    unit: str
    published: float | None
    measured: float
    source: str

    @property
    def relative_difference(self) -> float:
        if self.published is None or self.published == 0:
            return math.nan
        return (self.measured - self.published) / abs(self.published)


@dataclass
class Claim:
    """A statement of the paper, tcplab's verdict on it, and the numbers behind the verdict."""

    claim_id: str
    experiment: str
    text: str
    verdict: str
    evidence: str


@dataclass
class Reproduction:
    paper: str
    title: str
    quick: bool
    runs: int | None
    out: Path
    scenarios: Path
    client: Any
    on_progress: Callable[[str, int, int], None] | None = None
    numbers: list[Number] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)

    def runs_or(self, full: int, quick: int = 1) -> int:
        """Runs per point: --runs if given, else the paper's (or `quick` with --quick)."""
        if self.runs is not None:
            return self.runs
        return quick if self.quick else full

    def sweep(self, name: str, scenario: str, vary: Mapping[str, tuple[Sequence[str], Sequence[Any]]],
              runs: int, overrides: Mapping[str, Any] | None = None):
        """Runs `scenario` (a file in the paper's scenario folder) at every point of `vary`
        (label -> (keys, values)); the sweep is kept in out/sweeps/<name>."""
        from tcplab.report import write_report
        from tcplab.sweeps import Parameter, SweepResult, SweepStore, execute, plan_from

        parameters = [Parameter(label, tuple(keys), tuple(values)) for label, (keys, values) in vary.items()]
        plan = plan_from([str(self.scenarios / scenario)], parameters, runs=runs, overrides=dict(overrides or {}))
        store = SweepStore.create(self.out / "sweeps" / name, plan)

        def progress(done: int, total: int, error: str | None) -> None:
            if error is not None:
                raise RuntimeError(f"a run of {name} failed: {error}")
            if self.on_progress:
                self.on_progress(name, done, total)

        execute(store, client=self.client, on_progress=progress)
        write_report(store.directory)
        return SweepResult(store.directory)

    def number(self, experiment: str, quantity: str, condition: str, unit: str, published: float | None,
               measured: float, source: str) -> Number:
        entry = Number(experiment, quantity, condition, unit, published, float(measured), source)
        self.numbers.append(entry)
        return entry

    def claim(self, experiment: str, text: str, verdict: str, evidence: str) -> Claim:
        if verdict not in VERDICTS:
            raise ValueError(f"verdict '{verdict}' is not one of {VERDICTS}")
        entry = Claim(f"{self.paper}-{len(self.claims) + 1}", experiment, text, verdict, evidence)
        self.claims.append(entry)
        self.parts.append(f"- **Claim {entry.claim_id}** ({entry.verdict}): {text}  \n  {evidence}")
        return entry

    def text(self, markdown: str) -> None:
        self.parts.append(markdown.strip())

    def numbers_table(self, experiment: str) -> None:
        """The experiment's numbers as a Markdown table: paper, tcplab, relative difference."""
        rows = [n for n in self.numbers if n.experiment == experiment]
        lines = ["| quantity | condition | paper | tcplab | difference |", "|---|---|---:|---:|---:|"]
        for n in rows:
            published = "(figure only)" if n.published is None else f"{n.published:g} {n.unit}"
            difference = "" if math.isnan(n.relative_difference) else f"{n.relative_difference:+.1%}"
            lines.append(f"| {n.quantity} | {n.condition} | {published} | {n.measured:.4g} {n.unit} | {difference} |")
        self.parts.append("\n".join(lines))

    def figure(self, name: str, fig, caption: str) -> Path:
        import matplotlib.pyplot as plt

        path = self.out / "figures" / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=100)
        plt.close(fig)
        self.parts.append(f"![{caption}](figures/{name}.png)\n\n*{caption}*")
        return path


def verdict(checks: Sequence[bool]) -> str:
    """All checks hold: reproduced; some: partly; none: not reproduced."""
    held = sum(bool(c) for c in checks)
    if held == len(checks):
        return "reproduced"
    return "partly" if held else "not reproduced"
