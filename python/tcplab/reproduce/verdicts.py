"""The verdict rules every reproduction uses (docs/reproductions/README.md, "How a verdict is
reached"), written once:

- A claim has one **headline** (the quantity or ordering the paper states first) and may have
  **secondary** parts (a magnitude, a second ordering). A combined statement becomes two claims.
- Each part is a `Check` whose outcome is True (holds over the whole 95% confidence interval of the
  runs), False (fails over the whole interval) or None (the interval straddles the bound: these
  runs cannot decide it).
- **reproduced**: every headline check holds and every secondary check holds.
- **partly**: every headline check holds and a secondary check does not (fails or is undecided).
- **not reproduced**: a headline check fails.
- **not testable here**: the setting cannot decide the claim (a reason is given: a window cap
  that bounds the result, a difference below one packet's serialisation), or a headline check is
  undecided by the runs' interval.

A check on a count or a deterministic run is exact: its interval has zero width.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tcplab.reproduce.estimates import Estimate

REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_TESTABLE = "reproduced", "partly", "not reproduced", "not testable here"
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_TESTABLE)


@dataclass(frozen=True)
class Check:
    """One part of a claim: what is checked, in words with the numbers, and its outcome."""

    description: str
    outcome: bool | None
    # The outcome at the runs' mean alone, as the earlier rule judged (see `earlier_rule`).
    at_mean: bool

    def format(self) -> str:
        mark = {True: "holds", False: "fails", None: "undecided by the runs' 95% interval"}[self.outcome]
        return f"{self.description}: {mark}"


def _interval_outcome(low_side_holds: bool, high_side_holds: bool) -> bool | None:
    if low_side_holds and high_side_holds:
        return True
    if not low_side_holds and not high_side_holds:
        return False
    return None


def at_least(what: str, estimate: Estimate, bound: float, unit: str = "") -> Check:
    """`estimate` >= `bound`: holds when the whole interval is at or above it, fails when the whole
    interval is below it."""
    return Check(f"{what} {estimate.format()}{unit} >= {bound:g}{unit}",
                 _interval_outcome(estimate.low >= bound, estimate.high >= bound), estimate.mean >= bound)


def at_most(what: str, estimate: Estimate, bound: float, unit: str = "") -> Check:
    """`estimate` <= `bound`, over the whole interval."""
    return Check(f"{what} {estimate.format()}{unit} <= {bound:g}{unit}",
                 _interval_outcome(estimate.high <= bound, estimate.low <= bound), estimate.mean <= bound)


def within(what: str, estimate: Estimate, low: float, high: float, unit: str = "") -> Check:
    """`low` <= `estimate` <= `high`: holds when the whole interval lies inside, fails when the
    interval lies wholly outside on one side, undecided otherwise."""
    if estimate.low >= low and estimate.high <= high:
        outcome: bool | None = True
    elif estimate.high < low or estimate.low > high:
        outcome = False
    else:
        outcome = None
    return Check(f"{what} {estimate.format()}{unit} within [{low:g}, {high:g}]{unit}", outcome,
                 low <= estimate.mean <= high)


def holds(what: str, outcome: bool) -> Check:
    """An exact check: a count, an event seen or not, a deterministic run."""
    return Check(what, bool(outcome), bool(outcome))


def judge(headline: Sequence[Check], secondary: Sequence[Check] = (), not_testable: str | None = None) -> str:
    """The verdict of a claim from its checks, by the rules above."""
    if not_testable:
        return NOT_TESTABLE
    if not headline:
        raise ValueError("a claim needs at least one headline check")
    if any(c.outcome is False for c in headline):
        return NOT_REPRODUCED
    if any(c.outcome is None for c in headline):
        return NOT_TESTABLE
    return REPRODUCED if all(c.outcome is True for c in secondary) else PARTLY


def earlier_rule(checks: Sequence[Check]) -> str:
    """The rule of the reports before 2026-11-26, for saying why a verdict changed: each check
    judged at the runs' mean; every check held, reproduced; some, partly; none, not reproduced."""
    held = sum(c.at_mean for c in checks)
    if held == len(checks):
        return REPRODUCED
    return PARTLY if held else NOT_REPRODUCED
