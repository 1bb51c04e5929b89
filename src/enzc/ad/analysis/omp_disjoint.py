"""Which loads of an OpenMP region's body no other thread's iterations can touch.

In the reverse of a parallel region, the adjoint of a load from shared memory is
added into the shadow of the loaded location; threads meeting there must add
atomically. They cannot meet when every access of the region to that object is
at `base + c * i + rest`: one invariant `base`, `i` the counter of the region's
one work-sharing loop (the runtime hands each of its values to one thread), and
`rest` a sum of constants and counters of loops with constant trip counts whose
span, with the access sizes, fits within `|c|` bytes. Then iteration `i` owns the
bytes `[base + c*i + lo, base + c*i + hi)` with `hi - lo <= |c|`, and no other
iteration reaches them. Offsets are read through `getelementptr` over scalars and
arrays, and `sext`/`zext`, `add`/`mul`/`shl` without wrap-around (`nsw`/`nuw`) and
`or disjoint` of indices. So `x[i]`, `x[2*i]` with `x[2*i+1]`, and `a[i*M + j]`
(`j` in `[0, M)`, M constant) are disjoint; stencil neighbours `x[i-1]`, `x[i]`,
`x[i+1]` (span 24 bytes for `c` = 8), a scatter through an index array, a
coefficient every iteration reads, an object also reached through another pointer
or passed to a call, and symbolic row lengths are not, and stay atomic.
"""

from __future__ import annotations

from typing import Callable

from enzc.ir.datalayout import DataLayout
from enzc.ir.instructions import BinaryOp, CallBase, Cast, GetElementPtr, Instruction, Load, Phi, Store
from enzc.ir.loops import LoopInfo
from enzc.ir.module import Function
from enzc.ir.types import I64, ArrayType, PointerType, Type
from enzc.ir.values import Argument, ConstantInt, GlobalValue, Value

from enzc.ad.analysis.memory_facts import underlying_objects

LOWER_BOUND_ARG = {
    **{f"__kmpc_for_static_init_{w}": 4 for w in ("4", "4u", "8", "8u")},
    **{f"__kmpc_dispatch_next_{w}": 3 for w in ("4", "4u", "8", "8u")},
}
"""Work-sharing runtime calls and which argument receives the thread's lower bound."""

WORKSHARE_INIT = ("__kmpc_for_static_init_", "__kmpc_dispatch_init_")
"""A work-sharing loop starts with one of these (a chunked or dynamic schedule then
asks for further lower bounds in a loop around the loop)."""

NO_WRAP = ("nsw", "nuw")

SMALL = 2**24
"""Coefficients and constants small enough that 64-bit sums of them times 32-bit
values cannot wrap."""

MayAlias = Callable[[list[Value], list[Value]], bool]


def invariant_address(ptr: Value) -> bool:
    """`ptr` is the same address throughout one call of the function: an argument, a
    global, or constant offsets from one."""
    while isinstance(ptr, GetElementPtr):
        if not all(isinstance(i, ConstantInt) for i in ptr.indices):
            return False
        ptr = ptr.ptr
    return isinstance(ptr, (Argument, GlobalValue))


def _peel(v: Value) -> Value:
    while isinstance(v, Cast) and v.opcode in ("sext", "zext"):
        v = v.value
    return v


class IterationDisjoint:
    """The loads of `fn` (an outlined region's body) that only one iteration of its
    work-sharing loop addresses (module docstring)."""

    def __init__(self, fn: Function, loops: LoopInfo, may_alias: MayAlias, layout: DataLayout) -> None:
        self.fn = fn
        self.layout = layout
        self.narrow = False
        """The work-sharing loop's bounds are 32-bit (`_4`/`_4u` runtime calls)."""
        self.loops = loops
        self.may_alias = may_alias
        self.ivs = self._workshare_counters()
        self._by_object: dict[Value, bool] = {}

    def disjoint(self, load: Load) -> bool:
        """Whether no two iterations of the work-sharing loop can reach `load`'s location."""
        if not self.ivs:
            return False
        objs = underlying_objects(load.ptr)
        key = objs[0] if len(objs) == 1 else load
        got = self._by_object.get(key)
        if got is None:
            got = self._by_object[key] = self._owned_by_iteration(objs)
        return got

    # -- the work-sharing loop's counters -------------------------------------------------
    def _workshare_counters(self) -> set[Value]:
        """Header phis of loops starting at a lower bound the runtime handed this thread,
        stepping by a non-zero constant; none unless the region runs exactly one
        work-sharing loop once (outside any loop: each value of the counter is then
        run once in the whole team)."""
        bounds, inits = set(), []
        for inst in self.fn.instructions():
            if isinstance(inst, CallBase) and inst.called_function is not None:
                name = inst.called_function.name or ""
                if (k := LOWER_BOUND_ARG.get(name)) is not None:
                    bounds.add(inst.args[k])
                if name.startswith(WORKSHARE_INIT):
                    inits.append(inst)
        if len(inits) != 1 or self.loops.loop_for(inits[0].parent) is not None:  # type: ignore[arg-type]
            return set()
        self.narrow = (inits[0].called_function.name or "").endswith(("_4", "_4u"))  # type: ignore[union-attr]
        out: set[Value] = set()
        for loop in self.loops:
            for phi in loop.header.phis:
                starts = [v for v, p in phi.incoming if not loop.contains(p)]
                steps = [v for v, p in phi.incoming if loop.contains(p)]
                if len(starts) == 1 and _is_load_of(starts[0], bounds) and steps and all(_steps(s, phi) for s in steps):
                    out.add(phi)
        return out

    # -- every access of the object is owned by one iteration --------------------------------
    def _owned_by_iteration(self, objs: list[Value]) -> bool:
        accesses: list[tuple[Value, Offset, int]] = []
        for inst in self.fn.instructions():
            if isinstance(inst, (Load, Store)):
                if not self.may_alias(underlying_objects(inst.ptr), objs):
                    continue
                got = self._decompose(inst.ptr)
                if got is None:
                    return False
                ty = inst.type if isinstance(inst, Load) else inst.value.type
                accesses.append((*got, self.layout.size_of(ty)))
            elif _may_reach_memory(inst) and any(
                    isinstance(a.type, PointerType) and self.may_alias(underlying_objects(a), objs)
                    for a in (inst.args if isinstance(inst, CallBase) else inst.operands)):
                return False
        return self._fits_one_stride(accesses)

    def _fits_one_stride(self, accesses: list[tuple[Value, Offset, int]]) -> bool:
        """One base, one work-sharing counter with one stride `c`, and every access's
        other terms spanning, all together, at most `|c|` bytes."""
        if not accesses or len({id(base) for base, _, _ in accesses}) != 1:
            return False
        lo, hi, stride = None, None, None
        for _, off, size in accesses:
            ivs = [v for v in off.terms if v in self.ivs]
            if len(ivs) != 1 or (stride is not None and off.terms[ivs[0]] != stride):
                return False
            stride = off.terms[ivs[0]]
            a, b = off.const, off.const
            for v, coef in off.terms.items():
                if v is ivs[0]:
                    continue
                span = self._counter_span(v)
                if span is None:
                    return False
                a, b = a + min(coef * span[0], coef * span[1]), b + max(coef * span[0], coef * span[1])
            lo = a if lo is None else min(lo, a)
            hi = b + size if hi is None else max(hi, b + size)
        return stride is not None and hi - lo <= abs(stride)  # type: ignore[operator]

    def _counter_span(self, v: Value) -> tuple[int, int] | None:
        """(first, last) value of `v`, the header phi of a loop with a constant trip
        count and constant start and step."""
        if not isinstance(v, Phi) or v.parent is None:
            return None
        loop = self.loops.loop_for(v.parent)
        if loop is None or loop.header is not v.parent:
            return None
        tc = loop.trip_count()
        count = tc.constant if tc is not None else None
        for iv in loop.induction_variables():
            if iv.phi is v and isinstance(iv.start, ConstantInt) and count is not None and count > 0:
                return iv.start.value, iv.start.value + iv.step * (count - 1)
        return None

    # -- byte offsets ---------------------------------------------------------------------
    def _decompose(self, ptr: Value) -> tuple[Value, Offset] | None:
        """`ptr` as (invariant base, byte offset), or None."""
        off = Offset()
        while isinstance(ptr, GetElementPtr):
            ty: Type = ptr.source_type
            for k, idx in enumerate(ptr.indices):
                if k > 0:
                    if not isinstance(ty, ArrayType):
                        return None
                    ty = ty.element
                scaled = self._index(idx)
                if scaled is None:
                    return None
                off.add(scaled, self.layout.alloc_size_of(ty))
            ptr = ptr.ptr
        return (ptr, off) if isinstance(ptr, (Argument, GlobalValue)) else None

    def _index(self, v: Value) -> Offset | None:
        """Integer `v` as constants plus counters times constants, or None."""
        v = _peel(v)
        if isinstance(v, ConstantInt):
            return Offset(const=v.value)
        if isinstance(v, Phi):
            return Offset(terms={v: 1})
        if not isinstance(v, BinaryOp):
            return None
        exact = any(f in v.flags for f in NO_WRAP)
        if v.opcode == "add" or v.opcode == "or" and "disjoint" in v.flags:
            a, b = self._index(v.lhs), self._index(v.rhs)
            if a is None or b is None:
                return None
            a.add(b, 1)
            return a if exact or v.opcode == "or" or self._cannot_wrap(v, a) else None
        if v.opcode in ("mul", "shl") and isinstance(v.rhs, ConstantInt):
            a = self._index(v.lhs)
            if a is None:
                return None
            out = Offset()
            out.add(a, v.rhs.value if v.opcode == "mul" else 1 << v.rhs.value)
            return out if exact or self._cannot_wrap(v, out) else None
        return None

    def _cannot_wrap(self, v: Value, off: Offset) -> bool:
        """A 64-bit sum of small multiples of 32-bit-bounded counters: LLVM drops
        `nsw` when it widens an `int` index, but such a sum stays far from 2**63."""
        small = abs(off.const) < SMALL and all(abs(c) < SMALL for c in off.terms.values())
        return v.type == I64 and small and len(off.terms) < 8 and all(self._bounded32(t) for t in off.terms)

    def _bounded32(self, v: Value) -> bool:
        """A counter whose values fit in 32 bits: the work-sharing counter of a
        32-bit schedule call, or a loop counter with a constant span that does."""
        if v in self.ivs:
            return self.narrow
        span = self._counter_span(v)
        return span is not None and all(abs(x) < 2**31 for x in span)


class Offset:
    """`const + sum(coef * value)` (bytes, or index units before scaling)."""

    def __init__(self, const: int = 0, terms: dict[Value, int] | None = None) -> None:
        self.const = const
        self.terms: dict[Value, int] = dict(terms or {})

    def add(self, other: Offset, scale: int) -> None:
        self.const += other.const * scale
        for v, c in other.terms.items():
            self.terms[v] = self.terms.get(v, 0) + c * scale
            if self.terms[v] == 0:
                del self.terms[v]


def _is_load_of(v: Value, slots: set[Value]) -> bool:
    v = _peel(v)
    return isinstance(v, Load) and v.ptr in slots


def _steps(step: Value, phi: Phi) -> bool:
    """`step` is `phi + c`, c a non-zero constant."""
    if not (isinstance(step, BinaryOp) and step.opcode == "add"):
        return False
    pairs = [(step.lhs, step.rhs), (step.rhs, step.lhs)]
    return any(a is phi and isinstance(c, ConstantInt) and c.value != 0 for a, c in pairs)


def _may_reach_memory(inst: Instruction) -> bool:
    """Instructions other than loads and stores that may read or write the program's
    memory through a pointer operand (the OpenMP runtime's scheduling and
    synchronisation calls and lifetime markers do not)."""
    if isinstance(inst, CallBase):
        name = inst.called_function.name or "" if inst.called_function is not None else ""
        return not (name.startswith(("__kmpc_", "llvm.lifetime.")) and name != "__kmpc_fork_call")
    return inst.opcode in ("atomicrmw", "cmpxchg")


