"""A quantity measured over several runs: its mean and the 95% confidence interval of that mean
(Student's t, the runs taken as independent samples), which every reported number and every
verdict carries.

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

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def scaled(self, factor: float) -> Estimate:
        """The same estimate in another unit (factor > 0)."""
        return Estimate(self.mean * factor, self.low * factor, self.high * factor, self.runs)

    def format(self, digits: int = 4) -> str:
        """'12.3 ± 0.4' (the 95% interval's half width), or the mean alone without spread."""
        if self.runs <= 1 or self.half_width == 0:
            return f"{self.mean:.{digits}g}"
        return f"{self.mean:.{digits}g} ± {self.half_width:.2g}"
