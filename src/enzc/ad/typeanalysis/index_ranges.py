"""The values an array index computed from loop counters can take.

`m[j / 3][j % 3]` in a loop `for (j = 0; j < 6; j++)` reaches `m[0][0]` to
`m[1][2]`: the walk is bounded by the loop even where no declared type says
where the array ends (`array_regions`). The optimizer rewrites such an index:
`j % 3` becomes `select (j < 3), j, j - 3` (and, for an `int` counter widened to
64 bits, `(j + 2^32 - 3) & 0xffffffff`), whose false side alone would reach
`-3`. So a `select` on a comparison of a value with a constant is followed on
each side with what the comparison says there (`j >= 3` on the false side): the
SSA values both sides read hold one value when the select runs.
"""

from __future__ import annotations

from collections.abc import Mapping

from enzc.ir.instructions import INVERSE_PREDICATE, SWAPPED_PREDICATE, BinaryOp, Br, Cast, Compare, Phi, Select
from enzc.ir.types import I1
from enzc.ir.values import ConstantInt, Value

Range = tuple[int, int]

_UNBOUNDED = 1 << 64
"""Beyond any index: a side a comparison leaves open."""

_MAX_RANGE_DEPTH = 8
"""Instructions followed back from an index to the loop counters it is computed from."""


class _Fact:
    """What a comparison `x pred C` says about x where it holds: x in [lo, hi]; an
    unsigned lower bound (`x >= C` unsigned) only holds for x known non-negative."""

    def __init__(self, lo: int, hi: int, needs_nonnegative: bool = False) -> None:
        self.lo, self.hi, self.needs_nonnegative = lo, hi, needs_nonnegative

    def narrow(self, known: Range | None) -> Range | None:
        if known is None:
            bounded = not self.needs_nonnegative and abs(self.lo) < _UNBOUNDED and abs(self.hi) < _UNBOUNDED
            return (self.lo, self.hi) if bounded else None
        if self.needs_nonnegative and known[0] < 0:
            return known
        lo, hi = max(known[0], self.lo), min(known[1], self.hi)
        return (lo, hi) if lo <= hi else known  # that side is never taken: the known range is wider, and safe


def index_range(v: Value) -> Range | None:
    """The values an index takes, [lo, hi], when it is computed from counted loop
    counters, constants and flags (`zext i1`) by +, -, *, shifts by a constant,
    udiv/sdiv, urem/srem, and, select (None: unknown)."""
    return _range(v, 0, {})


def _range(v: Value, depth: int, facts: Mapping[Value, _Fact]) -> Range | None:
    known = _computed_range(v, depth, facts)
    fact = facts.get(v)
    return fact.narrow(known) if fact is not None else known


def _computed_range(v: Value, depth: int, facts: Mapping[Value, _Fact]) -> Range | None:
    if isinstance(v, ConstantInt):
        return v.value, v.value
    if depth > _MAX_RANGE_DEPTH:
        return None
    if isinstance(v, Phi):
        bound = counted_loop_bound(v)
        first = next((x.value for x, _ in v.incoming if isinstance(x, ConstantInt)), None)
        return (first, bound - 1) if bound is not None and first is not None else None
    if isinstance(v, Cast) and v.opcode in ("sext", "zext"):
        if v.value.type == I1:
            return (0, 1) if v.opcode == "zext" else (-1, 0)
        return _range(v.value, depth + 1, facts)
    if isinstance(v, Select):
        return _union([_range(side, depth + 1, f) for side, f in _sides(v, facts)])
    if not isinstance(v, BinaryOp):
        return None
    for k, operand in enumerate((v.lhs, v.rhs)):
        if isinstance(operand, Select):  # `(j < 3 ? j : j + 2^32 - 3) & 0xffffffff`: each side on its own
            other = v.rhs if k == 0 else v.lhs
            results = []
            for side, f in _sides(operand, facts):
                pair = (_range(side, depth + 1, f), _range(other, depth + 1, f))
                results.append(_binary(v.opcode, *(pair if k == 0 else pair[::-1])))
            return _union(results)
    return _binary(v.opcode, _range(v.lhs, depth + 1, facts), _range(v.rhs, depth + 1, facts))


def _binary(opcode: str, a: Range | None, b: Range | None) -> Range | None:
    if a is None or b is None:
        return None
    if opcode == "add":
        return a[0] + b[0], a[1] + b[1]
    if opcode == "sub":
        return a[0] - b[1], a[1] - b[0]
    if a[0] < 0 or b[0] < 0:
        return None
    match opcode:
        case "mul":
            return a[0] * b[0], a[1] * b[1]
        case "shl" if b[0] == b[1]:
            return a[0] << b[0], a[1] << b[0]
        case "lshr" | "ashr" if b[0] == b[1]:
            return a[0] >> b[0], a[1] >> b[0]
        case "udiv" | "sdiv" if b[0] == b[1] > 0:
            return a[0] // b[0], a[1] // b[0]
        case "urem" | "srem" if b[0] == b[1] > 0:
            return 0, min(a[1], b[0] - 1)
        case "and":
            return _masked(a, b)
    return None


def _union(ranges: list[Range | None]) -> Range | None:
    if any(r is None for r in ranges):
        return None
    return min(r[0] for r in ranges), max(r[1] for r in ranges)  # type: ignore[index]


def _masked(a: Range, b: Range) -> Range:
    """`x & m` for non-negative x and m; a low-bits mask (`& 0xffffffff`, an `int`
    index widened after wrapping) keeps a range that stays within one period."""
    mask = b[0]
    if b[0] == b[1] and mask & (mask + 1) == 0 and a[0] & ~mask == a[1] & ~mask:
        return a[0] & mask, a[1] & mask
    return 0, min(a[1], b[1])


def _sides(v: Select, facts: Mapping[Value, _Fact]) -> list[tuple[Value, Mapping[Value, _Fact]]]:
    """The select's two values, each with what its condition says where it is taken."""
    when_true, when_false = dict(facts), dict(facts)
    cond = v.condition
    if isinstance(cond, Compare) and cond.opcode == "icmp":
        if isinstance(cond.rhs, ConstantInt):
            x, pred, c = cond.lhs, cond.predicate, cond.rhs.value
        elif isinstance(cond.lhs, ConstantInt):
            x, pred, c = cond.rhs, SWAPPED_PREDICATE.get(cond.predicate, ""), cond.lhs.value
        else:
            x, pred, c = None, "", 0
        if x is not None and pred in INVERSE_PREDICATE:
            for side, p in ((when_true, pred), (when_false, INVERSE_PREDICATE[pred])):
                fact = _fact(p, c)
                if fact is not None:
                    side[x] = fact
    return [(v.true_value, when_true), (v.false_value, when_false)]


def _fact(pred: str, c: int) -> _Fact | None:
    """What `x pred c` says about x (c as a signed constant)."""
    match pred:
        case "ult":
            return _Fact(0, c - 1) if c > 0 else None
        case "ule":
            return _Fact(0, c) if c >= 0 else None
        case "ugt":
            return _Fact(c + 1, _UNBOUNDED, needs_nonnegative=True) if c >= 0 else None
        case "uge":
            return _Fact(c, _UNBOUNDED, needs_nonnegative=True) if c >= 0 else None
        case "slt":
            return _Fact(-_UNBOUNDED, c - 1)
        case "sle":
            return _Fact(-_UNBOUNDED, c)
        case "sgt":
            return _Fact(c + 1, _UNBOUNDED)
        case "sge":
            return _Fact(c, _UNBOUNDED)
        case "eq":
            return _Fact(c, c)
    return None


def counted_loop_bound(counter: Value) -> int | None:
    """N when `counter` is a loop header's phi that starts at a constant 0 <= c < N
    and steps by one, and the loop stays in its header only while the next value is
    below N (`icmp ult/slt/ne next, N` branching back, `icmp eq next, N` leaving)."""
    if not isinstance(counter, Phi) or len(counter.incoming) != 2:
        return None
    starts = [v.value for v, _ in counter.incoming if isinstance(v, ConstantInt)]
    steps = [v for v, _ in counter.incoming if isinstance(v, BinaryOp) and v.opcode == "add"
             and counter in v.operands and any(isinstance(o, ConstantInt) and o.value == 1 for o in v.operands)]
    if len(starts) != 1 or len(steps) != 1 or starts[0] < 0:
        return None
    header = counter.parent
    for use in steps[0].uses:
        cmp = use.user
        if not (isinstance(cmp, Compare) and cmp.opcode == "icmp" and cmp.lhs is steps[0]
                and isinstance(cmp.rhs, ConstantInt) and cmp.rhs.value > starts[0]):
            continue
        for branch_use in cmp.uses:
            branch = branch_use.user
            if not (isinstance(branch, Br) and branch.is_conditional and branch.condition is cmp):
                continue
            stay, leave = branch.successors
            if cmp.predicate in ("ult", "slt", "ne") and stay is header and leave is not header \
                    or cmp.predicate == "eq" and leave is header and stay is not header:
                return cmp.rhs.value
    return None
