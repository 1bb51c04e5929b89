"""Exact iteration counts of small loops by running their exit test at compile time.

Some loops have no affine induction variable but still a constant count: after
unrolling, LLVM leaves loops such as

    %first = phi i1 [ true, %pre ], [ false, %latch ]
    ...
    br i1 %first, label %latch, label %exit        ; two iterations

When every header phi the exit test depends on starts at a constant and its
recurrence (the value on the latch edge) is computed from constants and header
phis only, the test can be evaluated iteration by iteration (like SCEV's
exhaustive exit-count evaluation). The first iteration whose test leaves the loop
gives the count. Anything else (loads, calls, values from inside the body that
are not header phis, more than `MAX_ITERATIONS` iterations) gives no count.
"""

from __future__ import annotations

from enzc.ir.instructions import BinaryOp, Br, Cast, Compare, Instruction, Phi, Select
from enzc.ir.loops import Loop
from enzc.ir.types import IntType
from enzc.ir.values import ConstantInt, Value


MAX_ITERATIONS = 64


class _Unknown(Exception):
    """The value is not computable from constants and header phis."""


def exhaustive_count(loop: Loop, exiting, preheader, latch) -> int | None:
    """Header executions of `loop` until `exiting`'s branch leaves it, if that test
    only depends on header phis with constant starts; None otherwise.

    `exiting` must run in every iteration (it dominates the latch)."""
    term = exiting.terminator
    if not isinstance(term, Br) or not term.is_conditional:
        return None
    exit_on_true = not loop.contains(term.successors[0])
    state: dict[Phi, int] = {}
    try:
        for phi in _header_phis(loop):
            start = phi.incoming_value_for(preheader)
            if isinstance(start, ConstantInt):
                state[phi] = start.value
        for k in range(MAX_ITERATIONS):
            cond = _Eval(loop, state).value(term.condition)  # type: ignore[arg-type]
            if bool(cond & 1) == exit_on_true:
                return k + 1
            state = _next(loop, state, latch)
    except (_Unknown, KeyError):
        return None
    return None


def _next(loop: Loop, state: dict[Phi, int], latch) -> dict[Phi, int]:
    """The header phis' values in the next iteration; a phi whose recurrence is
    not computable leaves the state (a test that needs it then fails)."""
    step = _Eval(loop, state)
    nxt: dict[Phi, int] = {}
    for phi in state:
        try:
            nxt[phi] = step.value(phi.incoming_value_for(latch))
        except _Unknown:
            pass
    return nxt


def _header_phis(loop: Loop) -> list[Phi]:
    return [i for i in loop.header.instructions if isinstance(i, Phi)]


class _Eval:
    """Values of one iteration, given the header phis' values `state`.

    Header phis without a constant start are absent from `state`: using one
    raises `_Unknown`, so only the phis the test needs must be computable."""

    def __init__(self, loop: Loop, state: dict[Phi, int]) -> None:
        self.loop = loop
        self.state = state
        self.memo: dict[Value, int] = {}

    def value(self, v: Value) -> int:
        """Signed value of integer `v` in this iteration."""
        if isinstance(v, ConstantInt):
            return v.value
        got = self.memo.get(v)
        if got is None:
            got = self.memo[v] = self._compute(v)
        return got

    def _compute(self, v: Value) -> int:
        if not isinstance(v, Instruction) or not isinstance(v.type, IntType):
            raise _Unknown
        if not self.loop.contains(v):
            raise _Unknown  # loop-invariant but not a constant
        if isinstance(v, Phi):
            if v.parent is not self.loop.header or v not in self.state:
                raise _Unknown
            return self.state[v]
        bits = v.type.bits
        if isinstance(v, BinaryOp):
            return _wrap(_binary(v.opcode, self.value(v.lhs), self.value(v.rhs), v.lhs.type.bits), bits)  # type: ignore[attr-defined]
        if isinstance(v, Compare) and v.opcode == "icmp" and isinstance(v.lhs.type, IntType):
            return int(_compare(v.predicate, self.value(v.lhs), self.value(v.rhs), v.lhs.type.bits))
        if isinstance(v, Select):
            return self.value(v.true_value if self.value(v.condition) & 1 else v.false_value)
        if isinstance(v, Cast) and isinstance(v.value.type, IntType):
            x = self.value(v.value)
            if v.opcode == "zext":
                return _wrap(x & _mask(v.value.type.bits), bits)
            if v.opcode in ("sext", "trunc"):
                return _wrap(x, bits)
        raise _Unknown


def _mask(bits: int) -> int:
    return (1 << bits) - 1


def _wrap(x: int, bits: int) -> int:
    """Signed value of the low `bits` bits of `x`."""
    x &= _mask(bits)
    return x - (1 << bits) if x >> (bits - 1) else x


def _binary(op: str, a: int, b: int, bits: int) -> int:
    ua, ub = a & _mask(bits), b & _mask(bits)
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if op == "and":
        return a & b
    if op == "or":
        return a | b
    if op == "xor":
        return a ^ b
    if op == "shl" and 0 <= ub < bits:
        return a << ub
    if op == "lshr" and 0 <= ub < bits:
        return ua >> ub
    if op == "ashr" and 0 <= ub < bits:
        return a >> ub
    if op in ("udiv", "urem") and ub != 0:
        return ua // ub if op == "udiv" else ua % ub
    if op in ("sdiv", "srem") and b != 0:
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return q if op == "sdiv" else a - q * b
    raise _Unknown  # poison or an opcode we do not evaluate


def _compare(pred: str, a: int, b: int, bits: int) -> bool:
    if pred.startswith("u"):
        a, b = a & _mask(bits), b & _mask(bits)
    rel = pred[1:] if pred[0] in "su" else pred
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[rel]
