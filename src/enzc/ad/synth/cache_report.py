"""What `--enzc-print-cache` says about each cache: the value, its size, the
formula of its bytes and where it lives, so a user can see what the tape costs.

    ; diffe_f: 2 cached values; per call: 1 tape-stack block(s)
    ;   %mul.cache: double (8 bytes) x n(%for.body) = 8*n(%for.body) bytes, allocated once per call, in one block of the tape stack (shared with 1 other cache)
    ;     where n(%for.body) = iterations from 0 step 1 while the counter slt %n (exact)

A count that is only an upper bound says so; a cache whose outer loop has no
count grows geometrically (`realloc`) from 16 entries. The placements are those
of `cache.CacheManager` (stack block, tape-stack block, arena piece, growing).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from enzc.ir.loops import Loop
from enzc.ir.values import Constant, Value

from enzc.ad.analysis.tripcount import TripCount
from enzc.ad.analysis.tripcount_largest import LargestCount
from enzc.ad.synth.gradient_utils import GradientUtils


@dataclass(frozen=True)
class CacheAllocation:
    """One cache array, described for people."""

    value: str
    """The cached value (`%mul`)."""
    type: str
    elem_bytes: int
    dims: tuple[str, ...]
    """One count name per loop of the array, outermost first."""
    growing: bool
    where: str
    """When the array is allocated."""
    counts: tuple[str, ...]
    """`n(header) = ...` definitions of the counts used."""

    kind: str = "growing"
    """Where the memory comes from: `stack`, `tape`, `arena`, `growing` or `slot`."""
    block: int = -1
    """Number of the shared block (stack, malloc, arena piece) the array is in."""
    block_bytes: int | None = None
    """Constant size of that block, when it has one."""
    invariant: tuple[str, ...] = ()
    """Loops the value is in but does not vary in (`loop_variance`): not indexed."""
    stored_once: str = ""
    """The loop only whose first iteration reaching the store stores it (`store_once`)."""

    def placed(self, where: str, kind: str, block: int, block_bytes: int | None) -> CacheAllocation:
        """This array, now that its placement is decided."""
        return replace(self, where=where, kind=kind, block=block, block_bytes=block_bytes)

    def stored_once_in(self, loop: str) -> CacheAllocation:
        return replace(self, stored_once=loop)

    def lines(self) -> list[str]:
        size = "*".join([str(self.elem_bytes), *self.dims])
        how = self.where
        unit = "byte" if self.elem_bytes == 1 else "bytes"
        shape = f" x {' x '.join(self.dims)}" if self.dims else ", one slot"
        head = f"{self.value}.cache: {self.type} ({self.elem_bytes} {unit}){shape}"
        same = f"; the same in every iteration of {', '.join(self.invariant)}" if self.invariant else ""
        once = f", stored only by the first iteration of {self.stored_once} that reaches it" if self.stored_once else ""
        return [f"{head} = {size} bytes, {how}{same}{once}", *(f"  where {c}" for c in self.counts)]


def describe(gu: GradientUtils, value: Value, loops: list[Loop], outer_growing: bool, where: str,
             invariant: list[Loop] | None = None, largest: dict[Loop, LargestCount] | None = None) -> CacheAllocation:
    """Describe the cache of `value` (a forward value) indexed by `loops`, allocated `where`;
    `invariant`: the loops of the value it does not vary in; `largest`: the loops
    sized by their largest count over the iterations of an invariant loop."""
    dims: list[str] = []
    counts: list[str] = []
    for i, loop in enumerate(loops):
        name = f"n(%{gu.label(loop.header)})"
        dims.append(name)
        if i == 0 and outer_growing:
            counts.append(f"{name} = iterations of loop %{gu.label(loop.header)} (no count known)")
            continue
        tc = gu.trip_count(loop)
        over = largest.get(loop) if largest else None
        prefix = over.text(lambda L: "%" + gu.label(L.header)) + " " if over is not None else ""
        counts.append(f"{name} = {prefix}{_count_text(gu, tc)}" if tc is not None else f"{name} = ?")
    same = tuple(f"%{gu.label(L.header)}" for L in invariant or [])
    return CacheAllocation("%" + gu.label(value), str(value.type), gu.layout.alloc_size_of(value.type), tuple(dims),
                           outer_growing, where, tuple(counts), invariant=same)


def _count_text(gu: GradientUtils, tc: TripCount) -> str:
    def name(v: Value) -> str:
        if isinstance(v, Constant):
            try:
                return v.ref()
            except ValueError:
                return "?"
        return "%" + gu.label(v)

    if tc.fixed is not None:
        return f"{tc.fixed} (exit test evaluated at compile time, {'exact' if tc.exact else 'upper bound'})"
    test = "the incremented counter" if tc.on_next else "the counter"
    kind = "exact" if tc.exact else "upper bound"
    return (f"iterations from {name(tc.start)} step {tc.step} while {test} {tc.predicate} {name(tc.bound)} "
            f"({kind})")


def report(function_name: str, values: int, allocations: list[CacheAllocation]) -> str:
    """The text `--enzc-print-cache` prints for one derivative."""
    kinds: dict[str, dict[object, int]] = {"stack": {}, "tape": {}, "arena": {}, "growing": {}, "slot": {}}
    for a in allocations:
        kinds[a.kind][a.block if a.kind not in ("growing", "slot") else a.value] = a.block_bytes or 0
    stack_bytes = sum(kinds["stack"].values())
    parts = [f"{len(kinds['stack'])} stack block(s) ({stack_bytes} bytes)" if kinds["stack"] else "",
             f"{len(kinds['tape'])} tape-stack block(s)" if kinds["tape"] else "",
             f"{len(kinds['arena'])} arena piece(s) per outer iteration" if kinds["arena"] else "",
             f"{len(kinds['growing'])} growing array(s)" if kinds["growing"] else "",
             f"{len(kinds['slot'])} stack slot(s)" if kinds["slot"] else ""]
    summary = ", ".join(p for p in parts if p) or "nothing allocated"
    out = [f"; {function_name}: {values} cached values; per call: {summary}"]
    for a in allocations:
        out += [";   " + line for line in a.lines()]
    return "\n".join(out) + "\n"
