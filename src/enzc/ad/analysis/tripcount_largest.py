"""The largest iteration count of a loop over the iterations of an enclosing loop.

A value read in `for t / for u <= t` that is the same in every iteration of `t`
(GPT's attention keys and values) is cached once per `u`, not per `(t, u)`: its
array is allocated outside `t`, so the count of `u` it is sized by must be known
there. The count of `u` depends on `t` only through an operand that is affine in
`t`'s iteration number `k` (`t + 1`, kept by LLVM as a header phi starting at 1
with step 1). An exit test's count is monotone in each of its operands (a
difference, clamped at zero, divided by a constant step), so over `k` in
`[0, n - 1]` it is largest at an end: the largest count is the larger of the
counts at `k = 0` and `k = n - 1`, where `n` is the enclosing loop's count (an
upper bound is enough: the range only widens). The ends are computed in 64-bit
arithmetic, so only 64-bit operands qualify (a narrower counter may wrap within
the range, where the count is not monotone); a loop that would need 2^63
iterations to wrap never finishes. The result is at least 1, like any header's
count.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import product
from typing import Callable

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import BinaryOp, Instruction, Phi
from enzc.ir.loops import Loop, LoopInfo
from enzc.ir.types import I64, IntType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.tripcount import TripCount

CountOf = Callable[[Loop], "TripCount | None"]
"""The count of a loop (the derivative's memoized `trip_count`)."""
Available = Callable[[Value], bool]
"""Whether an original value can be used where the array is allocated."""


@dataclass(frozen=True)
class Affine:
    """`start + step * k + offset` in iteration `k` of `loop`."""

    loop: Loop
    start: Value
    step: int
    offset: int

    def at(self, b: IRBuilder, value_map, k: Value | None) -> Value:
        """The value in iteration `k` (None: the first); constant when its parts are."""
        v = value_map(self.start)
        if isinstance(v, ConstantInt) and (k is None or isinstance(k, ConstantInt)):
            return ConstantInt(I64, v.value + self.step * (k.value if k is not None else 0) + self.offset)
        if k is not None and self.step:
            v = b.add(v, b.mul(k, ConstantInt(I64, self.step), "tcmax.step"), "tcmax.at")
        return b.add(v, ConstantInt(I64, self.offset), "tcmax.at") if self.offset else v


@dataclass(frozen=True)
class LargestCount:
    """`count`'s largest value over the iterations of the loops its varying operands are affine in."""

    count: TripCount
    varying: tuple[tuple[Value, Affine], ...]
    """The operands of `count` that vary, each with its affine form."""
    outer: tuple[tuple[Loop, TripCount], ...]
    """The loops they vary in, with their counts."""

    def emit(self, b: IRBuilder, value_map) -> Value:
        """i64 IR for the largest count (at least 1), at a point where the outer counts
        are known; a constant when the counts are."""
        lasts = {L: _sub1(b, tc.emit(b, value_map)) for L, tc in self.outer}
        best: Value = ConstantInt(I64, 1)
        for ends in product((False, True), repeat=len(lasts)):
            k_of = {L: (lasts[L] if last else None) for L, last in zip(lasts, ends)}
            at = {id(v): form.at(b, value_map, k_of[form.loop]) for v, form in self.varying}
            parts = {"start": self.count.start, "bound": self.count.bound}
            count = replace(self.count, **{f: at.get(id(v), v) for f, v in parts.items()})
            computed = set(map(id, at.values()))
            n = count.emit(b, lambda v: v if id(v) in computed else value_map(v))
            if isinstance(n, ConstantInt) and isinstance(best, ConstantInt):
                best = ConstantInt(I64, max(n.value, best.value))
            else:
                best = b.select(b.icmp("sgt", n, best, "tcmax.gt"), n, best, "tcmax")
        return best

    def text(self, name: Callable[[Loop], str]) -> str:
        """Says what it is, for `--enzc-print-cache`."""
        over = ", ".join(name(L) for L, _ in self.outer)
        return f"the largest over the iterations of {over} of"


def _sub1(b: IRBuilder, n: Value) -> Value:
    if isinstance(n, ConstantInt):
        return ConstantInt(I64, n.value - 1)
    return b.sub(n, ConstantInt(I64, 1), "tcmax.last")


def largest_count(loop: Loop, loops: LoopInfo, count_of: CountOf, available: Available,
                  may_vary: frozenset[Loop]) -> LargestCount | None:
    """The largest count of `loop` over the loops in `may_vary` its count depends on,
    computable where `available` holds; None when there is no such form."""
    tc = count_of(loop)
    if tc is None:
        return None
    varying: list[tuple[Value, Affine]] = []
    outer: dict[Loop, TripCount] = {}
    for v in tc.operands():
        if available(v):
            continue
        if not isinstance(v.type, IntType) or v.type.bits != 64:
            return None
        form = _affine(v, loops, may_vary, available)
        if form is None:
            return None
        outer_tc = count_of(form.loop)
        if outer_tc is None or not all(available(o) for o in outer_tc.operands()):
            return None
        varying.append((v, form))
        outer[form.loop] = outer_tc
    return LargestCount(tc, tuple(varying), tuple(outer.items()))


def _affine(v: Value, loops: LoopInfo, may_vary: frozenset[Loop], available: Available) -> Affine | None:
    """`v` as `phi + offset` for a header phi `start + step * k` of a loop in `may_vary`."""
    offset = 0
    while isinstance(v, BinaryOp) and v.opcode == "add" and isinstance(v.rhs, ConstantInt):
        offset += v.rhs.value
        v = v.lhs
    if not isinstance(v, Phi) or v.parent is None or len(v.incoming) != 2:
        return None
    enclosing = loops.loops_of(v.parent)
    loop = enclosing[-1] if enclosing else None
    if loop is None or loop.header is not v.parent or loop not in may_vary:
        return None
    pre, latch = loop.preheader, loop.latch
    if pre is None or latch is None:
        return None
    try:
        start, nxt = v.incoming_value_for(pre), v.incoming_value_for(latch)
    except KeyError:
        return None
    if not (isinstance(nxt, BinaryOp) and nxt.opcode == "add" and nxt.lhs is v and isinstance(nxt.rhs, ConstantInt)):
        return None
    if isinstance(start, Instruction) and loop.contains(start) or not available(start):
        return None
    return Affine(loop, start, nxt.rhs.value, offset)
