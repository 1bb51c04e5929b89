"""Iteration counts of loops, as IR computed at the loop's preheader.

Caches inside loops are sized from these counts. A count is *exact* when the loop
has a single exiting block whose test we understand (the reverse pass then
recomputes the last iteration from it instead of recording it). Otherwise a
count from one understood test that runs every iteration and ends the loop on
its own (possibly or-ed with other conditions) is an upper bound, which is
enough to size a cache. Loops without an affine induction variable whose exit
test is computable from constants get an exact constant count by evaluating the
test (`tripcount_exhaustive`). Counts never underestimate: without one, caches grow.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzc.ir.builder import IRBuilder
from enzc.ir.dominators import DominatorTree
from enzc.ir.instructions import INVERSE_PREDICATE, SWAPPED_PREDICATE, BinaryOp, Br, Cast, Compare, Instruction, Phi, Select
from enzc.ir.loops import Loop
from enzc.ir.types import I64, IntType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.tripcount_exhaustive import exhaustive_count


@dataclass(frozen=True)
class TripCount:
    """The loop runs `iterations` times (header executions), computed from these parts."""

    start: Value
    """Initial value of the induction variable (from the preheader)."""
    bound: Value
    """Loop-invariant value the induction variable is compared with."""
    step: int
    on_next: bool
    """The test compares the incremented value (`i + step`) rather than `i`."""
    predicate: str
    """Predicate under which the loop continues, with the induction variable on the left."""
    exact: bool
    fixed: int | None = None
    """A constant count found by evaluating the exit test (`tripcount_exhaustive`);
    the other fields then do not matter."""

    def operands(self) -> tuple[Value, ...]:
        return () if self.fixed is not None else (self.start, self.bound)

    def constant(self) -> int | None:
        """The count when it is known at compile time."""
        if self.fixed is not None:
            return self.fixed
        if not (isinstance(self.start, ConstantInt) and isinstance(self.bound, ConstantInt)):
            return None
        return _constant_count(self)

    def emit(self, b: IRBuilder, value_map) -> Value:
        """i64 IR for the number of iterations; `value_map` maps operands to new values."""
        known = self.constant()
        if known is not None:
            return ConstantInt(I64, known)
        start = value_map(self.start)
        bound = value_map(self.bound)
        width = start.type.bits  # type: ignore[attr-defined]
        signed = self.predicate.startswith("s")
        if self.predicate == "ne":
            diff = b.sub(bound, start, "tc.diff") if self.step > 0 else b.sub(start, bound, "tc.diff")
            if self.on_next:
                diff = b.sub(diff, ConstantInt(start.type, 1), "tc.diff")  # type: ignore[arg-type]
            k = _ext(b, diff, width, signed=False)
            return b.add(k, ConstantInt(I64, 1), "tc")
        s = _ext(b, start, width, signed)
        n = _ext(b, bound, width, signed)
        step = abs(self.step)
        first = b.add(s, ConstantInt(I64, self.step), "tc.first") if self.on_next else s
        span = b.sub(n, first, "tc.span") if self.step > 0 else b.sub(first, n, "tc.span")
        if self.predicate[1:] in ("lt", "gt"):
            k = b.sdiv(b.add(span, ConstantInt(I64, step - 1), "tc.up"), ConstantInt(I64, step), "tc.k") if step > 1 else span
        else:
            q = b.sdiv(span, ConstantInt(I64, step), "tc.q") if step > 1 else span
            k = b.add(q, ConstantInt(I64, 1), "tc.k")
        positive = b.icmp("sgt", k, ConstantInt(I64, 0), "tc.pos")
        k = b.select(positive, k, ConstantInt(I64, 0), "tc.kmax")
        return b.add(k, ConstantInt(I64, 1), "tc")


def _constant_count(tc: TripCount) -> int:
    """`TripCount.emit`'s formula evaluated on constant operands."""
    start, bound = tc.start, tc.bound
    assert isinstance(start, ConstantInt) and isinstance(bound, ConstantInt)
    width = start.type.bits  # type: ignore[attr-defined]
    if tc.predicate == "ne":
        diff = bound.value - start.value if tc.step > 0 else start.value - bound.value
        if tc.on_next:
            diff -= 1
        return _wrap64(diff & ((1 << width) - 1)) + 1
    signed = tc.predicate.startswith("s")
    s, n = (start.value, bound.value) if signed else (start.unsigned, bound.unsigned)
    step = abs(tc.step)
    first = s + tc.step if tc.on_next else s
    span = _wrap64(n - first if tc.step > 0 else first - n)
    if tc.predicate[1:] in ("lt", "gt"):
        k = _sdiv(span + step - 1, step)
    else:
        k = _sdiv(span, step) + 1
    return _wrap64(max(k, 0) + 1)


def _wrap64(x: int) -> int:
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >> 63 else x


def _sdiv(a: int, b: int) -> int:
    """LLVM's `sdiv`: rounds toward zero."""
    q = abs(a) // b
    return q if a >= 0 else -q


def _ext(b: IRBuilder, v: Value, width: int, signed: bool) -> Value:
    if width == 64:
        return v
    if width > 64:
        return b.trunc(v, I64, "tc.t")
    return b.sext(v, I64, "tc.x") if signed else b.zext(v, I64, "tc.x")


def trip_count(loop: Loop, dt: DominatorTree) -> TripCount | None:
    """The iteration count of `loop` if one exit test has a recognisable form."""
    latches = loop.latches
    preheader = loop.preheader
    if preheader is None or len(latches) != 1:
        return None
    exiting = loop.exiting_blocks
    for e in exiting:
        if not all(dt.block_dominates(e, lt) for lt in latches):
            continue
        tc = _from_exit(loop, e, preheader, latches[0])
        if tc is not None:
            exact = tc.exact and len(exiting) == 1
            return TripCount(tc.start, tc.bound, tc.step, tc.on_next, tc.predicate, exact)
    for e in exiting:
        if not all(dt.block_dominates(e, lt) for lt in latches):
            continue
        n = exhaustive_count(loop, e, preheader, latches[0])
        if n is not None:
            zero = ConstantInt(I64, 0)
            return TripCount(zero, zero, 1, False, "ne", len(exiting) == 1, fixed=n)
    return None


def _from_exit(loop: Loop, e, preheader, latch) -> TripCount | None:
    term = e.terminator
    if not isinstance(term, Br) or not term.is_conditional:
        return None
    continue_on_true = loop.contains(term.successors[0])
    cond = term.condition
    assert cond is not None
    if isinstance(cond, Compare):
        return _from_compare(loop, cond, continue_on_true, preheader, latch, exact=True)
    for part in _exit_terms(cond, continue_on_true):
        tc = _from_compare(loop, part, continue_on_true, preheader, latch, exact=False)
        if tc is not None:
            return tc
    return None


def _exit_terms(cond: Value, continue_on_true: bool) -> list[Compare]:
    """Compares that each alone would end the loop: `a | b` (`select a, true, b`)
    when exiting on true, `a & b` (`select a, b, false`) when continuing on true.
    Each bounds the iteration count (the other may end the loop earlier)."""
    ops: list[Value] = []
    if isinstance(cond, BinaryOp) and cond.opcode == ("and" if continue_on_true else "or"):
        ops = [cond.lhs, cond.rhs]
    elif isinstance(cond, Select):
        c, t, f = cond.operands
        if not continue_on_true and isinstance(t, ConstantInt) and t.value:
            ops = [c, f]
        elif continue_on_true and isinstance(f, ConstantInt) and not f.value:
            ops = [c, t]
    return [o for o in ops if isinstance(o, Compare)]


def _from_compare(loop: Loop, cmp: Compare, continue_on_true: bool, preheader, latch,
                  exact: bool) -> TripCount | None:
    """The count from one integer compare; `exact` False marks an upper bound."""
    if cmp.opcode != "icmp" or not isinstance(cmp.lhs.type, IntType):
        return None
    pred = cmp.predicate
    if not continue_on_true:
        pred = INVERSE_PREDICATE[pred]
    for iv_side, other, p in ((cmp.lhs, cmp.rhs, pred), (cmp.rhs, cmp.lhs, SWAPPED_PREDICATE[pred])):
        if _defined_in(other, loop):
            continue
        found = _induction(iv_side, loop, preheader, latch)
        if found is None:
            continue
        start, step, on_next = found
        if p == "ne" and abs(step) != 1:
            continue
        if p in ("slt", "ult", "sle", "ule") and step <= 0:
            continue
        if p in ("sgt", "ugt", "sge", "uge") and step >= 0:
            continue
        if p == "eq":
            continue
        return TripCount(start, other, step, on_next, p, exact)
    return None


def _defined_in(v: Value, loop: Loop) -> bool:
    return isinstance(v, Instruction) and loop.contains(v)


def _increment(v: Value, loop: Loop) -> tuple[Phi, int] | None:
    """(phi, step) if `v` is `phi + step`, or a phi in the loop merging such
    increments of one phi by one step (`phi [%i + 1, %a], [%i + 1, %b]`, left
    by LLVM when two paths reach the latch)."""
    if isinstance(v, BinaryOp) and v.opcode == "add" and isinstance(v.rhs, ConstantInt) and isinstance(v.lhs, Phi):
        return v.lhs, v.rhs.value
    if isinstance(v, Phi) and loop.contains(v) and v.parent is not loop.header and v.incoming:
        parts = [_increment(x, loop) if not isinstance(x, Phi) else None for x, _ in v.incoming]
        if all(p is not None for p in parts) and len(set(parts)) == 1:
            return parts[0]
    return None


def _induction(v: Value, loop: Loop, preheader, latch) -> tuple[Value, int, bool] | None:
    """(start, step, on_next) if `v` is an affine header phi or its increment, or
    such a value truncated (`trunc i64 %i.next to i32`, what LLVM leaves when it
    widens an `int` counter whose bound is only known as an `int` at run time)."""
    if isinstance(v, Cast) and v.opcode == "trunc":
        return _truncated(v, loop, preheader, latch)
    on_next = False
    phi = v
    inc = _increment(v, loop)
    if inc is not None:
        phi, on_next = inc[0], True
    if not isinstance(phi, Phi) or phi.parent is not loop.header or len(phi.incoming) != 2:
        return None
    try:
        start = phi.incoming_value_for(preheader)
        nxt = phi.incoming_value_for(latch)
    except KeyError:
        return None
    step = _increment(nxt, loop)
    if step is None or step[0] is not phi:
        return None
    if on_next and v is not nxt:
        return None
    if _defined_in(start, loop):
        return None
    return start, step[1], on_next


def _truncated(v: Cast, loop: Loop, preheader, latch) -> tuple[Value, int, bool] | None:
    """A truncated induction variable counts like one of the narrow type whose start
    is the wide start truncated: `trunc(s + k*step) == trunc(s) + k*step` modulo the
    narrow width. Only starts already available narrow are used: a constant, or the
    wide start's `sext`/`zext` operand."""
    found = _induction(v.value, loop, preheader, latch)
    if found is None:
        return None
    start, step, on_next = found
    narrow = v.type
    if isinstance(start, ConstantInt):
        return ConstantInt(narrow, start.value), step, on_next  # type: ignore[arg-type]
    if isinstance(start, Cast) and start.opcode in ("sext", "zext") and start.value.type == narrow:
        return start.value, step, on_next
    return None
