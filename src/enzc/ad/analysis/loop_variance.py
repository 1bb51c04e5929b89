"""Which loops' iterations a value depends on: caches are indexed by those loops only.

A value defined inside loops L1 ⊃ ... ⊃ Lk is, at each execution, a function of
the iteration numbers of *some* of those loops. The reverse pass caches it in an
array indexed by iteration numbers; when the value is the same in every
iteration of a loop Lj (given the iteration numbers of the others), that index
can go: `in[r][i]` read in `for r / for o / for i` is cached per (r, i), not per
(r, o, i). Every execution still stores into its slot, all with the same value.

`LoopVariance.varying(v)` is the set of loops of `v` it may vary in:

- an instruction outside every loop, an argument or a constant: none;
- a header phi of loop L advanced by cheap pure operations of itself and values
  defined outside L (`i + 1`, `p + stride`): L, and what its start and those
  values vary in (its k-th value is a function of k and of them);
- a cheap pure instruction (arithmetic, casts, compares, selects, GEPs, cheap
  intrinsics): what its operands vary in;
- a load: what its address varies in, and every loop of the load that contains
  an instruction that may write the memory it reads (`clobbered_in`);
- anything else (calls, other phis, operands from a loop the value is outside
  of): every loop it is in.

Between two iterations of Lj that share the iteration numbers of the other
loops only instructions of Lj run, so a load whose address does not vary in Lj
and that no write in Lj may clobber reads the same value in both.
"""

from __future__ import annotations

from typing import Callable

from enzc.ir.instructions import BinaryOp, CallBase, Cast, Compare, ExtractElement, ExtractValue, GetElementPtr
from enzc.ir.instructions import InsertElement, InsertValue, Instruction, Load, Phi, Select, ShuffleVector, UnaryOp
from enzc.ir.loops import Loop, LoopInfo
from enzc.ir.module import BasicBlock
from enzc.ir.values import Value

PURE = (BinaryOp, UnaryOp, Cast, Compare, Select, GetElementPtr, ExtractValue, InsertValue, ExtractElement,
        InsertElement, ShuffleVector)
"""Instructions whose result is a function of their operands alone."""

CHEAP_INTRINSICS = ("llvm.fmuladd.", "llvm.fma.", "llvm.fabs.", "llvm.copysign.", "llvm.minnum.", "llvm.maxnum.",
                    "llvm.minimum.", "llvm.maximum.")
"""Pure intrinsics cheap enough to recompute (name prefixes)."""
PURE_INTRINSICS = ("llvm.sin.", "llvm.cos.")
"""Pure intrinsics too costly to recompute (the partners `synth/sincos.py` adds)."""

_MAX_STEP = 16
"""Instructions a header phi's update may take."""
_MAX_DEPTH = 100
"""Operand chains deeper than this are taken to vary in every loop."""


def cheap_intrinsic(call: CallBase) -> bool:
    fn = call.called_function
    name = fn.name if fn is not None else None
    return name is not None and name.startswith(CHEAP_INTRINSICS) and not call.bundle_tags and call.num_blocks == 0


def is_pure(inst: Instruction) -> bool:
    """A result that is a function of the operands alone."""
    return isinstance(inst, PURE) or isinstance(inst, CallBase) and (cheap_intrinsic(inst) or _pure_math(inst))


def _pure_math(call: CallBase) -> bool:
    fn = call.called_function
    name = fn.name if fn is not None else None
    return name is not None and name.startswith(PURE_INTRINSICS) and not call.bundle_tags and call.num_blocks == 0


LoadClobber = Callable[[Load, Loop], bool]
"""Whether an instruction inside the loop may write the memory the load reads."""


class LoopVariance:
    """The loops each value of one function varies in (see the module docstring)."""

    def __init__(self, loops: LoopInfo, clobbered_in: LoadClobber) -> None:
        self.loops = loops
        self.clobbered_in = clobbered_in
        self._memo: dict[Value, frozenset[Loop]] = {}

    def varying(self, v: Value, depth: int = 0) -> frozenset[Loop]:
        got = self._memo.get(v)
        if got is None:
            if depth > _MAX_DEPTH:
                return frozenset(self._loops(v))
            got = self._memo[v] = self._varying(v, depth + 1)
        return got

    def _loops(self, v: Value) -> list[Loop]:
        if not isinstance(v, Instruction) or v.parent is None:
            return []
        return self.loops.loops_of(v.parent)

    def _varying(self, v: Value, depth: int) -> frozenset[Loop]:
        mine = self._loops(v)
        if not mine:
            return frozenset()
        everything = frozenset(mine)
        assert isinstance(v, Instruction)
        if isinstance(v, Phi):
            return self._header_phi(v, mine[-1], depth) or everything
        if isinstance(v, Load):
            if v.volatile or v.ordering is not None:
                return everything
            inner = self._operands([v.ptr], mine, depth)
            if inner is None:
                return everything
            return inner | {L for L in mine if L not in inner and self.clobbered_in(v, L)}
        if is_pure(v):
            got = self._operands([o for o in v.operands if not isinstance(o, BasicBlock)], mine, depth)
            return everything if got is None else got
        return everything

    def _operands(self, ops: list[Value], mine: list[Loop], depth: int) -> frozenset[Loop] | None:
        """What `ops` vary in; None when one is defined in a loop the user is outside of."""
        out: frozenset[Loop] = frozenset()
        for o in ops:
            theirs = self._loops(o)
            if mine[: len(theirs)] != theirs:
                return None
            out |= self.varying(o, depth)
        return out

    def _header_phi(self, phi: Phi, loop: Loop, depth: int) -> frozenset[Loop] | None:
        """`{loop}` and what its start and step values vary in, for a header phi
        advanced by pure operations of itself and values from outside the loop."""
        pre, latch = loop.preheader, loop.latch
        if phi.parent is not loop.header or pre is None or latch is None or len(phi.incoming) != 2:
            return None
        try:
            start, nxt = phi.incoming_value_for(pre), phi.incoming_value_for(latch)
        except KeyError:
            return None
        outside: list[Value] = [start]
        work, seen = [nxt], set()
        while work:
            x = work.pop()
            if x is phi or id(x) in seen:
                continue
            seen.add(id(x))
            if not isinstance(x, Instruction) or not loop.contains(x):
                outside.append(x)
                continue
            if not is_pure(x) or len(seen) > _MAX_STEP:
                return None
            work.extend(o for o in x.operands if not isinstance(o, BasicBlock))
        got = self._operands(outside, self.loops.loops_of(loop.header)[:-1], depth)
        return None if got is None else got | {loop}
