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

Overlapping iterations (`Halo`): when the span `hi - lo` exceeds `|c|`, iterations
more than `w = ceil((hi - lo) / |c|) - 1` apart still touch disjoint bytes. If the
counter steps by +-1, one run of the loop (a chunk the runtime handed one thread)
covers consecutive counter values, so its iterations `w <= k <= last - w` share
their bytes only with iterations of the same run, i.e. of the same thread: their
adjoints may be added plainly, the `w` iterations at each end of the run add
atomically. The same holds for periodic indices `(i + a) % M` (`srem`/`urem` by a
constant) when the loop's whole range `[lb, ub]` (constants given to the runtime)
has at most `M` values and `lb + a >= 0`, every access staying inside its `|c|`-byte
row: then `w = max a - min a`, and iterations closer than that across the wrap
(`0` and `M-1`) are each at an end of their run. Anything else stays atomic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

from enzc.ir.datalayout import DataLayout
from enzc.ir.instructions import BinaryOp, CallBase, Cast, GetElementPtr, Instruction, Load, Phi, Store
from enzc.ir.loops import Loop, LoopInfo
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

RING_OPS = ("srem", "urem")

MAX_HALO = 1 << 16
"""Wider overlaps are left atomic (no run of a loop would have an interior)."""


class Part(NamedTuple):
    """One access's offset: `stride * row + [lo, hi)` bytes, the row being the counter
    (`modulus` None) or `(counter + shift) rem modulus`."""

    iv: Value
    stride: int
    modulus: int | None
    shift: int
    lo: int
    hi: int


@dataclass(frozen=True)
class Halo:
    """Iteration `k` (from 0) of one run of `loop` may add its adjoint plainly when
    `width <= k <= last - width`; width 0: every iteration may (module docstring).
    With `regions`, only if also, at run time, the byte ranges `[base + lo, base + hi)`
    (what the accesses through each base reach over the loop's whole range) do not
    overlap: the bases are arguments into one object (`u = work`, `v = work + N*N`)."""

    loop: Loop | None
    width: int
    regions: tuple[tuple[Value, int, int], ...] = ()
    extent: tuple[int, int] | None = None
    """The bytes the accesses reach over the loop's whole range, relative to their base."""


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
        self.bounds: tuple[int, int] | None = None
        """The work-sharing loop's whole range [lb, ub] when the code gives constants."""
        self.start_of: dict[Value, Phi] = {}
        """A counter's first value in a run (the loaded lower bound): read as the counter
        in the run's preheader, which runs only when the loop is entered."""
        self._start_used = False
        self.ivs = self._workshare_counters()
        self._by_object: dict[Value, Halo | None] = {}

    def disjoint(self, load: Load) -> bool:
        """Whether no two iterations of the work-sharing loop can reach `load`'s location."""
        got = self._sharing(load)
        return got is not None and got.width == 0 and not got.regions

    def halo(self, load: Load) -> Halo | None:
        """For a load only nearby iterations share, or only if some bases' regions are
        apart: which iterations add plainly."""
        got = self._sharing(load)
        if got is None or (got.width == 0 and not got.regions):
            return None
        if got.width > 0 and (got.loop is None or not got.loop.contains(load)):
            return None
        return got

    def _sharing(self, load: Load) -> Halo | None:
        if not self.ivs:
            return None
        objs = underlying_objects(load.ptr)
        key = objs[0] if len(objs) == 1 else load
        if key not in self._by_object:
            self._by_object[key] = self._owned_by_iteration(objs)
        return self._by_object[key]

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
        self.bounds = _whole_range(inits[0])
        out: set[Value] = set()
        for loop in self.loops:
            for phi in loop.header.phis:
                starts = [v for v, p in phi.incoming if not loop.contains(p)]
                steps = [v for v, p in phi.incoming if loop.contains(p)]
                if len(starts) == 1 and _is_load_of(starts[0], bounds) and steps and all(_steps(s, phi) for s in steps):
                    out.add(phi)
                    self.start_of[_peel(starts[0])] = phi
        return out

    # -- every access of the object is owned by one iteration --------------------------------
    def _owned_by_iteration(self, objs: list[Value]) -> Halo | None:
        accesses: list[tuple[Value, Offset, int]] = []
        for inst in self.fn.instructions():
            if isinstance(inst, (Load, Store)):
                if not self.may_alias(underlying_objects(inst.ptr), objs):
                    continue
                self._start_used = False
                got = self._decompose(inst.ptr)
                if got is None or (self._start_used and not self._in_run_preheader(inst, got[1])):
                    return None
                ty = inst.type if isinstance(inst, Load) else inst.value.type
                accesses.append((*got, self.layout.size_of(ty)))
            elif _may_reach_memory(inst) and any(
                    isinstance(a.type, PointerType) and self.may_alias(underlying_objects(a), objs)
                    for a in (inst.args if isinstance(inst, CallBase) else inst.operands)):
                return None
        return self._apart(accesses)

    def _apart(self, accesses: list[tuple[Value, Offset, int]]) -> Halo | None:
        """Accesses through one base, or through several argument or global bases each
        within a known extent: then the halo holds when those extents do not overlap
        (checked at run time)."""
        groups: dict[int, list[tuple[Value, Offset, int]]] = {}
        for acc in accesses:
            groups.setdefault(id(acc[0]), []).append(acc)
        if len(groups) <= 1:
            return self._footprint(accesses)
        halos = [self._footprint(g) for g in groups.values()]
        if any(h is None or h.extent is None or h.loop is None for h in halos) or len({h.loop for h in halos}) != 1:  # type: ignore[union-attr]
            return None
        regions = tuple((g[0][0], *h.extent) for g, h in zip(groups.values(), halos))  # type: ignore[union-attr, misc]
        return Halo(halos[0].loop, max(h.width for h in halos), regions)  # type: ignore[union-attr]

    def _in_run_preheader(self, inst: Instruction, off: Offset) -> bool:
        """An access through a counter's first value sits in its loop's preheader (so
        the value is one the thread runs)."""
        for v in off.terms:
            loop = self.loops.loop_for(v.parent) if isinstance(v, Phi) and v in self.ivs else None  # type: ignore[arg-type]
            if loop is not None and loop.preheader is not None and inst.parent is loop.preheader:
                return True
        return False

    def _footprint(self, accesses: list[tuple[Value, Offset, int]]) -> Halo | None:
        """One base, one work-sharing counter with one stride `c` (directly or inside
        one periodic index), and how far apart iterations touching the same bytes
        may be."""
        if not accesses or len({id(base) for base, _, _ in accesses}) != 1:
            return None
        split = [self._split(off, size) for _, off, size in accesses]
        if any(p is None for p in split):
            return None
        parts: list[Part] = split  # type: ignore[assignment]
        if len({(p.iv, p.stride) for p in parts}) != 1:
            return None
        iv, stride = parts[0].iv, parts[0].stride
        moduli = {p.modulus for p in parts} - {None}
        if len(moduli) > 1:
            return None
        modulus = moduli.pop() if moduli else None
        if modulus is not None and any(p.modulus is None for p in parts):
            # `counter * c` is the periodic row `counter rem M` if the counter stays below M
            if self.bounds is None or self.bounds[1] >= modulus:
                return None
        loop = self._run_of(iv)
        lo, hi = min(p.lo for p in parts), max(p.hi for p in parts)
        if modulus is None:
            width = max(0, -(-(hi - lo) // abs(stride)) - 1)
            ends = None if self.bounds is None else [stride * b for b in self.bounds]
            extent = None if ends is None else (min(ends) + lo, max(ends) + hi)
        else:
            shifts = [p.shift for p in parts]
            rows_fit = stride > 0 and all(p.lo >= 0 and p.hi <= stride for p in parts)
            if not rows_fit or not self._wraps_once(modulus, min(shifts)):
                return None
            width = _arc_width(shifts, modulus)
            extent = (lo, stride * (modulus - 1) + hi)  # rows 0 .. M-1
        if width == 0:
            return Halo(loop, 0, extent=extent)
        return Halo(loop, width, extent=extent) if loop is not None and width <= MAX_HALO else None

    def _split(self, off: Offset, size: int) -> Part | None:
        """An access's offset read as one row term (the counter, or a periodic index of
        it) times the stride plus the span of the other terms."""
        rows = [(v, c) for v, c in off.terms.items() if v in self.ivs or self._ring(v) is not None]
        if len(rows) != 1:
            return None
        v, stride = rows[0]
        iv, modulus, shift = (v, None, 0) if v in self.ivs else self._ring(v)  # type: ignore[misc]
        a, b = off.const, off.const
        for t, coef in off.terms.items():
            if t is v:
                continue
            span = self._counter_span(t)
            if span is None:
                return None
            a, b = a + min(coef * span[0], coef * span[1]), b + max(coef * span[0], coef * span[1])
        return Part(iv, stride, modulus, shift, a, b + size)

    def _ring(self, v: Value) -> tuple[Value, int, int] | None:
        """(counter, M, a) when `v` is `(counter + a) rem M`, M a positive constant."""
        if not (isinstance(v, BinaryOp) and v.opcode in RING_OPS and isinstance(v.rhs, ConstantInt)):
            return None
        got = self._shifted_counter(v.lhs)
        return (got[0], v.rhs.value, got[1]) if got is not None and v.rhs.value > 0 else None

    def _shifted_counter(self, v: Value) -> tuple[Value, int] | None:
        """(counter, a) when integer `v` equals `counter + a` for every value the
        counter takes: casts and `add`s of constants that cannot wrap (`nsw`, or the
        loop's constant whole range stays inside the type)."""
        if v in self.ivs:
            return v, 0
        if isinstance(v, Cast) and v.opcode in ("sext", "zext", "trunc"):
            got = self._shifted_counter(v.value)
            if got is None or (v.opcode == "trunc" and not self._fits(v.type, got[1])):
                return None
            if v.opcode == "zext" and (self.bounds is None or self.bounds[0] + got[1] < 0):
                return None
            return got
        if isinstance(v, BinaryOp) and v.opcode == "add" and isinstance(v.rhs, ConstantInt):
            got = self._shifted_counter(v.lhs)
            if got is None:
                return None
            shift = got[1] + v.rhs.value
            return (got[0], shift) if "nsw" in v.flags or self._fits(v.type, shift) else None
        return None

    def _fits(self, ty: Type, shift: int) -> bool:
        """Every `counter + shift` of the loop's whole range, and the counter itself, is a
        signed value of integer type `ty` (no wrap-around)."""
        if self.bounds is None or not hasattr(ty, "bits"):
            return False
        half = 1 << (ty.bits - 1)  # type: ignore[attr-defined]
        lb, ub = self.bounds
        return all(-half <= x < half for x in (lb, ub, lb + shift, ub + shift))

    def _wraps_once(self, modulus: int, least_shift: int) -> bool:
        """The loop's whole range has at most `modulus` values and every `counter + a`
        is non-negative (so `rem` is the periodic index)."""
        if self.bounds is None:
            return False
        lb, ub = self.bounds
        return lb >= 0 and ub - lb + 1 <= modulus and lb + least_shift >= 0

    def _run_of(self, iv: Value) -> Loop | None:
        """The loop whose header holds counter `iv` if each of its iterations steps it by
        exactly +-1 (the counter then covers consecutive values in one run)."""
        assert isinstance(iv, Phi) and iv.parent is not None
        loop = self.loops.loop_for(iv.parent)
        if loop is None or loop.header is not iv.parent:
            return None
        steps = {_step_of(v, iv) for v, p in iv.incoming if loop.contains(p)}
        return loop if steps in ({1}, {-1}) else None

    def _counter_span(self, v: Value) -> tuple[int, int] | None:
        """(first, last) value of `v`, the header phi of a loop with a constant trip
        count and constant start and step; or (0, C) for `x & C`, C >= 0."""
        if isinstance(v, BinaryOp) and v.opcode == "and" and isinstance(v.rhs, ConstantInt) and v.rhs.value >= 0:
            return 0, v.rhs.value
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
        if v in self.start_of:
            self._start_used = True
            return Offset(terms={self.start_of[v]: 1})
        if isinstance(v, Phi):
            return Offset(terms={v: 1})
        if not isinstance(v, BinaryOp):
            return None
        if v.opcode in (*RING_OPS, "and") and isinstance(v.rhs, ConstantInt):
            return Offset(terms={v: 1})  # a periodic index or a mask: read by `_split`
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
        if (ring := self._ring(v)) is not None:
            return ring[1] < 2**31
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


def _arc_width(shifts: list[int], modulus: int) -> int:
    """The shortest arc of the ring Z_modulus covering every shift: rows `(i + a) rem M`
    of iterations `i`, `i'` meet only when `i - i'` is within that many steps of 0
    around the ring (`(i - 1 + M) % M` is shift M - 1, one step before 0)."""
    points = sorted({a % modulus for a in shifts})
    gaps = [b - a for a, b in zip(points, points[1:])] + [points[0] + modulus - points[-1]]
    return modulus - max(gaps)


def _whole_range(init: CallBase) -> tuple[int, int] | None:
    """[lb, ub] of a work-sharing loop as constants: the values stored into the bound
    slots just before `__kmpc_for_static_init_*`, or `__kmpc_dispatch_init_*`'s
    arguments; the increment must be 1 (clang's normalized loops)."""
    name = init.called_function.name or ""  # type: ignore[union-attr]
    if name.startswith("__kmpc_dispatch_init_"):
        lb, ub, step = init.args[3], init.args[4], init.args[5]
    else:
        lb, ub, step = _stored_before(init, init.args[4]), _stored_before(init, init.args[5]), init.args[7]
    if not (all(isinstance(x, ConstantInt) for x in (lb, ub, step)) and step.value == 1):  # type: ignore[union-attr]
        return None
    lo, hi = lb.value, ub.value  # type: ignore[union-attr]
    return (lo, hi) if 0 <= lo <= hi else None  # (an unsigned bound past 2**31 reads negative: refused)


def _stored_before(call: Instruction, slot: Value) -> Value | None:
    """The value last stored to `slot` before `call` in its block, if nothing else may
    write it in between (only stores and lifetime markers touch a bound slot)."""
    found = None
    for inst in call.parent.instructions:  # type: ignore[union-attr]
        if inst is call:
            return found
        if isinstance(inst, Store) and inst.ptr is slot:
            found = inst.value
        elif isinstance(inst, CallBase) and slot in inst.args and not (inst.called_function is not None and (
                inst.called_function.name or "").startswith("llvm.lifetime.")):
            found = None
    return None


def _step_of(step: Value, phi: Phi) -> int | None:
    """c when `step` is `phi + c` (c constant)."""
    if not (isinstance(step, BinaryOp) and step.opcode == "add"):
        return None
    for a, c in ((step.lhs, step.rhs), (step.rhs, step.lhs)):
        if a is phi and isinstance(c, ConstantInt):
            return c.value
    return None


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


