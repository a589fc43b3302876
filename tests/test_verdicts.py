"""The verdict rules (python/tcplab/reproduce/verdicts.py) on constructed claims: a headline judged
over the runs' 95% interval, secondary parts, "not testable here", the spread every number carries,
and how a changed verdict is explained."""

from __future__ import annotations

import math

import pytest

from tcplab.reproduce.context import Reproduction
from tcplab.reproduce.estimates import Estimate
from tcplab.reproduce.verdicts import (NOT_REPRODUCED, NOT_TESTABLE, PARTLY, REPRODUCED, at_least, at_most, earlier_rule,
                                       holds, judge, within)


def test_the_interval_is_students_t_over_the_runs():
    # Values 1..10: mean 5.5, sample standard deviation 3.02765, t(0.975, 9) = 2.262157.
    estimate = Estimate.of(range(1, 11))
    assert estimate.mean == 5.5
    assert estimate.half_width == pytest.approx(2.262157 * 3.02765 / math.sqrt(10), rel=1e-5)
    assert estimate.runs == 10
    assert Estimate.of([4.0]).half_width == 0


def test_a_paired_difference_removes_what_the_runs_share():
    first, second = [10.0, 20.0, 30.0], [9.0, 19.1, 28.9]
    paired = Estimate.paired_difference(first, second)
    assert paired.mean == pytest.approx(1.0)
    assert paired.high - paired.low < Estimate.of(first).high - Estimate.of(first).low
    with pytest.raises(ValueError):
        Estimate.paired_difference([1.0], [1.0, 2.0])


def test_a_bound_holds_fails_or_is_undecided_by_the_interval():
    assert at_least("gain", Estimate(0.5, 0.4, 0.6, 10), 0.3).outcome is True
    assert at_least("gain", Estimate(0.1, 0.0, 0.2, 10), 0.3).outcome is False
    assert at_least("gain", Estimate(0.35, 0.25, 0.45, 10), 0.3).outcome is None
    assert at_most("RTT", Estimate(4.0, 3.9, 4.1, 10), 4.2).outcome is True
    assert within("gain", Estimate(0.33, 0.3, 0.36, 10), 0.2, 0.5).outcome is True
    assert within("gain", Estimate(0.6, 0.55, 0.65, 10), 0.2, 0.5).outcome is False
    assert within("gain", Estimate(0.5, 0.45, 0.55, 10), 0.2, 0.5).outcome is None


def test_the_verdict_rules_on_constructed_claims():
    held, failed, undecided = holds("a", True), holds("b", False), at_least("c", Estimate(1.0, 0.0, 2.0, 10), 1.0)
    assert judge([held], [held]) == REPRODUCED
    assert judge([held], [failed]) == PARTLY
    assert judge([held], [undecided]) == PARTLY
    # A headline that fails is not reproduced, whatever the secondary parts do: the earlier rule
    # called this "partly" (one of two checks held).
    assert judge([failed], [held]) == NOT_REPRODUCED
    assert earlier_rule([failed, held]) == PARTLY
    # A headline the runs cannot decide, or a setting that cannot decide the claim.
    assert judge([undecided]) == NOT_TESTABLE
    assert judge([held], not_testable="the window caps the rate") == NOT_TESTABLE
    with pytest.raises(ValueError):
        judge([])


def test_a_claim_reports_its_checks_its_engines_and_why_its_verdict_changed(tmp_path):
    r = Reproduction("paper", "title", True, None, tmp_path, tmp_path, client=None)
    rule_change = r.claim("e", "A beats B.", [holds("A 2 > B 1", True)], [holds("by 10%", False)],
                          engines={"ns3": [holds("A 1 > B 2", False)]}, was=("paper-1", "reproduced"))
    assert rule_change.verdict == PARTLY
    assert rule_change.engines == {"ns3": NOT_REPRODUCED}
    assert "the verdict rules" not in rule_change.change  # the earlier rule also gives partly
    assert rule_change.change.startswith("was reproduced (paper-1): new numbers")
    by_rule = r.claim("e", "C beats D.", [holds("C > D", False)], [holds("by 10%", True)], was=("paper-2", "partly"))
    assert by_rule.verdict == NOT_REPRODUCED
    assert "the verdict rules" in by_rule.change
    untestable = r.claim("e", "E.", [holds("E", True)], not_testable="below one packet's serialisation")
    assert untestable.verdict == NOT_TESTABLE and untestable.change == "new claim"
    assert "Not testable here: below one packet's serialisation." in untestable.evidence
    number = r.number("e", "q", "c", "ms", 4.0, Estimate.of([4.0, 4.2, 4.4]), "Fig. 1", engines={"ns2": 4.1})
    assert number.measured.runs == 3 and number.engines["ns2"].mean == 4.1
    r.numbers_table("e")
    assert r.parts[-1].splitlines()[0].endswith("| ns-2.35 |")
    assert "4.2 ± 0.5 ms | 3 |" in r.parts[-1]


def test_a_median_difference_has_a_paired_bootstrap_interval_that_is_the_same_every_time():
    import numpy as np

    first = np.arange(1.0, 21.0)
    second = first - 2.0  # every run 2 lower: the paired median difference is 2 in every resample
    estimate = Estimate.bootstrap(lambda a, b: np.median(a) - np.median(b), first, second)
    assert (estimate.mean, estimate.low, estimate.high, estimate.runs) == (2.0, 2.0, 2.0, 20)
    noisy = Estimate.bootstrap(np.median, np.array([1.0, 5.0, 2.0, 8.0, 3.0, 9.0]))
    assert noisy.low <= noisy.mean <= noisy.high and noisy.low < noisy.high
    assert noisy == Estimate.bootstrap(np.median, np.array([1.0, 5.0, 2.0, 8.0, 3.0, 9.0]))
    with pytest.raises(ValueError):
        Estimate.bootstrap(np.median, [1.0, 2.0], [1.0])
