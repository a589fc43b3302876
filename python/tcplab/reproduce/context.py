"""What a paper's experiments use while they run: sweeps of the paper's scenarios on one Dask
client, the numbers measured beside the published ones, claims with verdicts, figures, and the
report's text in the order it is written."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcplab.reproduce.estimates import Estimate
from tcplab.reproduce.verdicts import Check, earlier_rule, judge

# Engines a number or claim can come from besides tcplab's simulator, as report columns.
ENGINE_NAMES = {"ns2": "ns-2.35", "ns3": "ns-3.44", "linux": "Linux kernel"}


@dataclass
class Number:
    """One quantity: what the paper published (None: a figure shows it without a number), what
    tcplab's simulator measured over the runs, and what the paper's own engine measured on the
    same scenario file (engine -> estimate)."""

    experiment: str
    quantity: str
    condition: str
    unit: str
    published: float | None
    measured: Estimate
    source: str
    engines: dict[str, Estimate] = field(default_factory=dict)

    @property
    def relative_difference(self) -> float:
        if self.published is None or self.published == 0:
            return math.nan
        return (self.measured.mean - self.published) / abs(self.published)


@dataclass
class Claim:
    """A statement of the paper, its checks, the verdict the rules give (verdicts.py), the same
    headline judged on each other engine, and the verdict of the last committed report."""

    claim_id: str
    experiment: str
    text: str
    verdict: str
    headline: list[Check]
    secondary: list[Check]
    not_testable: str | None
    note: str
    engines: dict[str, str]
    was: tuple[str, str] | None
    change: str

    @property
    def evidence(self) -> str:
        parts = []
        if self.not_testable:
            parts.append(f"Not testable here: {self.not_testable}.")
        parts.append("Headline: " + "; ".join(c.format() for c in self.headline) + ".")
        if self.secondary:
            parts.append("Secondary: " + "; ".join(c.format() for c in self.secondary) + ".")
        if self.engines:
            parts.append("The headline on the paper's engine: " + "; ".join(
                f"{ENGINE_NAMES[e]}, {v}" for e, v in self.engines.items()) + ".")
        if self.note:
            parts.append(self.note)
        return " ".join(parts)


def _change(verdict_now: str, was: tuple[str, str] | None, checks: Sequence[Check]) -> str:
    """Why the verdict differs from the last committed report's, from what can be known: a new
    claim; the rules (the same checks judged by the earlier rule give the earlier verdict); or the
    numbers (model and profile changes, listed in the report's "Changes since the last report")."""
    if was is None:
        return "new claim"
    old_id, old_verdict = was
    if old_verdict == verdict_now:
        return ""
    if checks and earlier_rule(checks) == old_verdict:
        return f"was {old_verdict} ({old_id}): the verdict rules; the earlier rule gives {old_verdict} on these numbers"
    return f"was {old_verdict} ({old_id}): new numbers, from the changes listed under 'Changes since the last report'"


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
    # The model and profile changes since the last committed report that alter this paper's
    # numbers, written before the rerun.
    changes: list[str] = field(default_factory=list)

    def runs_or(self, full: int, quick: int = 1) -> int:
        """Runs per point: --runs if given, else the paper's (or `quick` with --quick)."""
        if self.runs is not None:
            return self.runs
        return quick if self.quick else full

    def sweep(self, name: str, scenario: str, vary: Mapping[str, tuple[Sequence[str], Sequence[Any]]],
              runs: int, overrides: Mapping[str, Any] | None = None, backend: str = "simulator"):
        """Runs `scenario` (a file in the paper's scenario folder) at every point of `vary`
        (label -> (keys, values)) on `backend`; the sweep is kept in out/sweeps/<name>."""
        from tcplab.report import write_report
        from tcplab.sweeps import Parameter, SweepResult, SweepStore, execute, plan_from

        parameters = [Parameter(label, tuple(keys), tuple(values)) for label, (keys, values) in vary.items()]
        plan = plan_from([str(self.scenarios / scenario)], parameters, runs=runs, overrides=dict(overrides or {}),
                         backend=backend)
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
               measured: float | Estimate, source: str,
               engines: Mapping[str, float | Estimate] | None = None) -> Number:
        """A number for the report and numbers.csv; a float is a value without spread (one run or
        a deterministic outcome)."""
        def estimate(value: float | Estimate) -> Estimate:
            return value if isinstance(value, Estimate) else Estimate.exact(value)

        entry = Number(experiment, quantity, condition, unit, published, estimate(measured), source,
                       {engine: estimate(value) for engine, value in (engines or {}).items()})
        self.numbers.append(entry)
        return entry

    def claim(self, experiment: str, text: str, headline: Sequence[Check], secondary: Sequence[Check] = (),
              note: str = "", *, not_testable: str | None = None,
              engines: Mapping[str, Sequence[Check]] | None = None, was: tuple[str, str] | None = None) -> Claim:
        """A claim judged by the rules in verdicts.py. `engines` holds the headline checks computed
        from another engine's numbers (engine -> checks); `was` is (claim id, verdict) in the last
        committed report, or None for a claim it did not have."""
        claim_id = f"{self.paper}-{len(self.claims) + 1}"
        verdict = judge(headline, secondary, not_testable)
        engine_verdicts = {engine: judge(checks) for engine, checks in (engines or {}).items()}
        entry = Claim(claim_id, experiment, text, verdict, list(headline),
                      list(secondary), not_testable, note, engine_verdicts, was,
                      _change(verdict, was, [*headline, *secondary]))
        self.claims.append(entry)
        change = f" *Changed: {entry.change}.*" if entry.change and entry.change != "new claim" else ""
        self.parts.append(f'- <a id="claim-{entry.claim_id}"></a>**Claim {entry.claim_id}** ({entry.verdict}): '
                          f"{text}  \n  {entry.evidence}{change}")
        return entry

    def text(self, markdown: str) -> None:
        self.parts.append(markdown.strip())

    def numbers_table(self, experiment: str) -> None:
        """The experiment's numbers as a Markdown table: paper, tcplab (mean ± 95% interval over
        the runs), relative difference, and a column per other engine that measured any of them."""
        rows = [n for n in self.numbers if n.experiment == experiment]
        engines = [e for e in ENGINE_NAMES if any(e in n.engines for n in rows)]
        header = "| quantity | condition | paper | tcplab | runs | difference |" + "".join(
            f" {ENGINE_NAMES[e]} |" for e in engines)
        lines = [header, "|---|---|---:|---:|---:|---:|" + "---:|" * len(engines)]
        for n in rows:
            published = "(figure only)" if n.published is None else f"{n.published:g} {n.unit}"
            difference = "" if math.isnan(n.relative_difference) else f"{n.relative_difference:+.1%}"
            cells = "".join(f" {n.engines[e].format()} {n.unit} |" if e in n.engines else " |" for e in engines)
            lines.append(f"| {n.quantity} | {n.condition} | {published} | {n.measured.format()} {n.unit} | "
                         f"{n.measured.runs} | {difference} |{cells}")
        self.parts.append("\n".join(lines))

    def figure(self, name: str, fig, caption: str) -> Path:
        import matplotlib.pyplot as plt

        path = self.out / "figures" / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=100)
        plt.close(fig)
        self.parts.append(f"![{caption}](figures/{name}.png)\n\n*{caption}*")
        return path

