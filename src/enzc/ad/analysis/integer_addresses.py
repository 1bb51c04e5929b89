"""Pointers made from integers: `(T *)(((uintptr_t)p + 63) & ~63)`, or a pointer's
bits read back out of a vector.

Eigen's `handmade_aligned_malloc` (used whenever its alignment, 32 bytes with AVX
and 64 with AVX-512 under `-march=native`, exceeds malloc's) and many hand-written
allocators align a block this way:

    %bits = ptrtoint ptr %block to i64
    %down = and i64 %bits, -64
    %up   = add i64 %down, 64
    %data = inttoptr i64 %up to ptr

`%data` points into `%block`. Its shadow is the same arithmetic on the shadow
block's bits: the shadow block has the primal's size, so its aligned address lies
inside it as the primal's does, and every access the program makes relative to
`%data` (the original block's address stored just below it, for the `free`)
lands at the same place relative to the shadow's. Only `add`, `sub` (of an
integer from the address), `and` and `or` with integers not made from other
pointers' bits count.

SROA also merges a small object holding a scalar and a pointer (an Eigen
expression: `{double factor, ..., const double *column}`) into one `<4 x double>`
slot, and reads the pointer back as lane bits:

    %v    = load <4 x double>, ptr %slot
    %ints = bitcast <4 x double> %v to <4 x i64>
    %bits = extractelement <4 x i64> %ints, i64 2
    %col  = inttoptr i64 %bits to ptr

Where the slot has a shadow, the shadow of the pointer stored there is in the
shadow slot at the same place: the shadow of `%col` is the same reading of the
shadow slot. Anything else is not a pointer this module can follow.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzc.ir.instructions import BinaryOp, Cast, ExtractElement, Instruction, Load
from enzc.ir.types import IntType, PointerType
from enzc.ir.values import Constant, Value

_STEPS = frozenset({"add", "sub", "and", "or"})
_LOOK_BACK = 6
"""How far an operand is searched for other pointers' bits."""


@dataclass(frozen=True)
class IntegerAddress:
    """How an `inttoptr` is made: the steps from its root (a `ptrtoint` of a pointer,
    or a load whose bits hold one) to its integer operand, in order."""

    steps: tuple[Instruction, ...]

    @property
    def root(self) -> Instruction:
        return self.steps[0]

    @property
    def shadowed(self) -> Value:
        """The pointer whose shadow the address's shadow is made from: the one
        converted, or the memory the bits are loaded from."""
        root = self.root
        return root.ptr if isinstance(root, Load) else root.operand(0)

    @property
    def origin(self) -> Value:
        """Where the address points into, for the walks of `allocations`: the
        pointer converted, or the load (which points where the loaded pointer does)."""
        return self.root if isinstance(self.root, Load) else self.root.operand(0)


def integer_address(v: Value) -> IntegerAddress | None:
    """`v` as a pointer made from another's bits, or None."""
    if not (isinstance(v, Cast) and v.opcode == "inttoptr" and isinstance(v.operand(0).type, IntType)):
        return None
    steps: list[Instruction] = []
    bits = v.operand(0)
    for _ in range(_LOOK_BACK * 4):
        steps.append(bits)  # type: ignore[arg-type]
        match bits:
            case Cast(opcode="ptrtoint") if isinstance(bits.operand(0).type, PointerType):
                return IntegerAddress(tuple(reversed(steps)))
            case Load() if not bits.volatile and bits.ordering is None and steps[-2:-1] != [] \
                    and isinstance(steps[-2], (Cast, ExtractElement)):
                return IntegerAddress(tuple(reversed(steps)))  # lane bits read back out of a slot
            case Cast(opcode="bitcast"):
                bits = bits.operand(0)
            case ExtractElement():
                bits = bits.operand(0)
            case BinaryOp() if bits.opcode in _STEPS:
                following = _pointer_operand(bits)
                if following is None:
                    return None
                bits = following
            case _:
                return None
    return None


def _pointer_operand(op: BinaryOp) -> Value | None:
    """The operand of an address step that carries the address: the other must be
    a plain integer (`sub` only takes one away from the address)."""
    lhs, rhs = op.lhs, op.rhs
    if isinstance(rhs, Constant):
        return lhs
    if isinstance(lhs, Constant):
        return None if op.opcode == "sub" else rhs
    lhs_bits, rhs_bits = _has_pointer_bits(lhs), _has_pointer_bits(rhs)
    if lhs_bits == rhs_bits or (op.opcode == "sub" and rhs_bits):
        return None  # both or neither from pointers' bits, or an address subtracted
    return lhs if lhs_bits else rhs


def _has_pointer_bits(v: Value, depth: int = _LOOK_BACK) -> bool:
    """Whether integer `v` may be computed from a pointer's bits (a `ptrtoint` a few
    steps back)."""
    if isinstance(v, Cast) and v.opcode == "ptrtoint":
        return True
    if depth == 0 or not isinstance(v, (BinaryOp, Cast)):
        return False
    return any(_has_pointer_bits(o, depth - 1) for o in v.operands)


def pointer_difference_steps(index: Value) -> frozenset[Instruction]:
    """The integer steps of `index` made from pointers' bits, when among them is a
    difference of two pointers (`(char *)p - (char *)base`, Eigen's
    `handmade_aligned_realloc` keeping a block's offset from its aligned address):
    applied to a shadow, that offset must be the shadows' (an aligned shadow block's
    offset differs from the primal's). Empty when `index` holds no such difference."""
    steps: set[Instruction] = set()
    work = [index]
    while work:
        x = work.pop()
        if x in steps or not isinstance(x, (BinaryOp, Cast)) or not _has_pointer_bits(x):
            continue
        steps.add(x)
        if not (isinstance(x, Cast) and x.opcode == "ptrtoint"):
            work.extend(x.operands)
    difference = any(isinstance(x, BinaryOp) and x.opcode == "sub" and all(o in steps for o in x.operands)
                     for x in steps)
    return frozenset(steps) if difference else frozenset()
