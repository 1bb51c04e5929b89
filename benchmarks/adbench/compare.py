"""How close two derivatives are, in one number.

Entry i's error is |a_i - b_i| / max(|a_i|, |b_i|, floor * max_j |b_j|): a
relative error, except that entries far below the vector's scale (where
summation order alone moves the last digits by more than the entry's own
size) are measured against `floor` times the scale.  NaN anywhere is an
infinite error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_FLOOR = 1e-3
"""Entries under 1/1000 of the largest are compared against that level."""

TOOL_RTOL = 1e-8
"""Two tools' derivatives must agree to this (the issue's criterion)."""


@dataclass(frozen=True)
class Worst:
    """The worst entry of a comparison."""

    index: int
    error: float
    actual: float
    expected: float

    def __str__(self) -> str:
        return f"entry {self.index}: {self.actual!r} vs {self.expected!r} (error {self.error:.3g})"


def worst_error(actual: Sequence[float], expected: Sequence[float], floor: float = DEFAULT_FLOOR) -> Worst:
    """The entry where `actual` is furthest from `expected` (see module doc)."""
    if len(actual) != len(expected):
        raise ValueError(f"lengths differ: {len(actual)} vs {len(expected)}")
    scale = max((abs(v) for v in expected), default=0.0)
    worst = Worst(-1, 0.0, math.nan, math.nan)
    for i, (a, b) in enumerate(zip(actual, expected, strict=True)):
        if math.isnan(a) or math.isnan(b):
            return Worst(i, math.inf, a, b)
        denom = max(abs(a), abs(b), floor * scale)
        err = abs(a - b) / denom if denom > 0 else 0.0
        if err > worst.error:
            worst = Worst(i, err, a, b)
    return worst
