"""Forward values the reverse pass recomputes from the function's arguments.

A value outside every loop that the reverse pass needs is normally kept: used
directly when its block dominates every return, else spilled to a stack slot, and
in split mode every such value is a field of the tape. When it is a small pure,
non-trapping expression of the arguments and constants (`n / 2` as `ashr`,
`&out[2 * h]`, `n == 1`), the reverse computes it again instead: the arguments
are the same there (the reverse function receives them too), and a recursion's
calls then keep fewer bytes in their tapes (FFT: the halves' addresses and
their shadows).
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import BinaryOp, Cast, Compare, GetElementPtr, Instruction, Select
from enzc.ir.transforms import clone_instruction
from enzc.ir.values import Argument, Constant, ConstantInt, Value

DIVISIONS = ("udiv", "sdiv", "urem", "srem")
MAX_INSTRUCTIONS = 8
"""Instructions of one expression recomputed instead of kept."""


def argument_expression(v: Instruction) -> bool:
    """Whether `v` is a pure, non-trapping expression of arguments and constants of at
    most `MAX_INSTRUCTIONS` instructions."""
    seen: set[int] = set()
    work: list[Value] = [v]
    while work:
        x = work.pop()
        if isinstance(x, (Argument, Constant)) or id(x) in seen:
            continue
        if not isinstance(x, (GetElementPtr, Cast, BinaryOp, Compare, Select)) or _may_trap(x):
            return False
        seen.add(id(x))
        if len(seen) > MAX_INSTRUCTIONS:
            return False
        work.extend(x.operands)
    return True


def _may_trap(x: Instruction) -> bool:
    """A division whose divisor is not a constant other than 0 (and -1, for the signed
    ones: INT_MIN / -1 overflows): the forward may have guarded it by a branch."""
    if x.opcode not in DIVISIONS:
        return False
    d = x.operand(1)
    return not isinstance(d, ConstantInt) or d.value == 0 or x.opcode in ("sdiv", "srem") and d.value == -1


def recompute(b: IRBuilder, v: Value, done: dict[Value, Value]) -> Value:
    """`v` (an `argument_expression`) computed again at `b`; `done` maps the
    instructions already recomputed there to their copies."""
    if not isinstance(v, Instruction):
        return v
    got = done.get(v)
    if got is None:
        operands = {o: recompute(b, o, done) for o in v.operands}
        got = done[v] = b.insert(clone_instruction(v, operands), (v.name or "v") + ".re")
    return got
