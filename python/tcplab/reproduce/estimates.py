"""A quantity measured over several runs: its mean and the 95% confidence interval of that mean
(Student's t, the runs taken as independent samples), or a median or quantile with a bootstrap
interval, which every reported number and every verdict carries.

Runs of one sweep point differ by their run index, which selects every random stream; run r of
two points of the same sweep uses the same streams (docs/sweeps.md), so a difference between two
points is estimated from the paired per-run differences (`Estimate.paired_difference`), whose
interval is narrower than the two intervals side by side when the runs are correlated.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Estimate:
    """The mean of `runs` values and the bounds of its 95% confidence interval. One run (or values
    that do not vary, as in a scenario without a random element) gives an interval of zero width."""

    mean: float
    low: float
    high: float
    runs: int

    @classmethod
    def of(cls, values: Iterable[float]) -> Estimate:
        array = np.asarray([float(v) for v in values], dtype=float)
        array = array[~np.isnan(array)]
        if array.size == 0:
            return cls(math.nan, math.nan, math.nan, 0)
        mean = float(array.mean())
        if array.size == 1:
            return cls(mean, mean, mean, 1)
        from scipy.stats import t

        half = float(t.ppf(0.5 + CONFIDENCE / 2, array.size - 1) * array.std(ddof=1) / math.sqrt(array.size))
        return cls(mean, mean - half, mean + half, int(array.size))

    @classmethod
    def exact(cls, value: float) -> Estimate:
        """A value without spread: a count or a deterministic outcome."""
        return cls(float(value), float(value), float(value), 1)

    @classmethod
    def paired_difference(cls, first: Iterable[float], second: Iterable[float]) -> Estimate:
        """first - second, run by run: for two points of one sweep, whose run r shares its random
        streams."""
        a, b = np.asarray(list(first), dtype=float), np.asarray(list(second), dtype=float)
        if a.shape != b.shape:
            raise ValueError(f"paired runs differ in number: {a.size} and {b.size}")
        return cls.of(a - b)

    @classmethod
    def bootstrap(cls, statistic, *samples: Iterable[float], resamples: int = 2000, seed: int = 0) -> Estimate:
        """`statistic(*samples)` (a median, a quantile, a difference of two medians) with a 95%
        percentile-bootstrap interval: the runs are resampled with replacement, the same run
        indices for every sample (they are paired: run r of each algorithm shares its random
        streams). A fixed seed makes the interval the same on every build of the report."""
        arrays = [np.asarray(list(s), dtype=float) for s in samples]
        size = arrays[0].size
        if any(a.size != size for a in arrays):
            raise ValueError("bootstrapped samples must be paired: " + ", ".join(str(a.size) for a in arrays))
        value = float(statistic(*arrays))
        if size < 2:
            return cls(value, value, value, size)
        picks = np.random.default_rng(seed).integers(0, size, size=(resamples, size))
        draws = np.array([statistic(*(a[pick] for a in arrays)) for pick in picks], dtype=float)
        low, high = np.quantile(draws, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
        return cls(value, float(low), float(high), size)

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def scaled(self, factor: float) -> Estimate:
        """The same estimate in another unit (factor > 0)."""
        return Estimate(self.mean * factor, self.low * factor, self.high * factor, self.runs)

    def format(self, digits: int = 4) -> str:
        """'12.3 ± 0.4' (the 95% interval's half width) when the interval is symmetric, '12.3
        [11.8, 13.1]' when it is not (a bootstrap), or the value alone without spread."""
        if self.runs <= 1 or self.half_width == 0:
            return f"{self.mean:.{digits}g}"
        if not math.isclose(self.high - self.mean, self.mean - self.low, rel_tol=1e-6, abs_tol=1e-12):
            return f"{self.mean:.{digits}g} [{self.low:.{digits}g}, {self.high:.{digits}g}]"
        return f"{self.mean:.{digits}g} ± {self.half_width:.2g}"
