"""Which records the memory behind a copied pointer holds, from how the program
indexes it (`memtypes` asks where type analysis has no answer).

A pointer the program indexes as `getelementptr %struct.P, ptr %p, i64 %i` points
to whole `P` records; so does a phi or select of such buffers (the old and the new
buffer of a growing `std::vector`) when the steps between are whole records, a
pointer computed as `begin + (pos - begin)` (that is `pos`), a parameter every
direct caller passes such records for, and a loaded pointer whose TBAA tag names a
pointer to a record (`p1 _ZTS1P`). Byte offsets (`getelementptr i8`) declare
nothing. The strides in which the program walks memory from a pointer
(`walk_steps`) show records that no type names.
"""

from __future__ import annotations

from enzc.ir.instructions import GetElementPtr, Load, Phi, Select
from enzc.ir.module import Function
from enzc.ir.types import IntType, Type
from enzc.ir.values import Argument, ConstantSimple, Value

from enzc.ad.analysis.gradient_state import GradientState
from enzc.ad.typeanalysis.callers import direct_call_sites
from enzc.ad.typeanalysis.declared_records import pointee_declaration
from enzc.ad.typeanalysis.indexed_types import indexed_type
from enzc.ad.typeanalysis.offsets import TypeSeeds, alloca_offset, gep_offset, rebased_addresses


def _chosen_from(ptr: Value, limit: int) -> list[Value]:
    """`ptr` and the phis and selects that may choose it, following their uses
    (at most `limit` values)."""
    found: list[Value] = []
    work, seen = [ptr], set()
    while work and len(seen) < limit:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        found.append(v)
        work += [use.user for use in v.uses if isinstance(use.user, (Phi, Select))]
    return found


def indexed_below(ptr: Value) -> Type | None:
    """The one type the program indexes `ptr` with, directly or after phis and
    selects that choose it (`_indexed_from`); None when none or several."""
    types = {t for v in _chosen_from(ptr, 32) if (t := _indexed_from(v)) is not None}
    return types.pop() if len(types) == 1 else None


def declared_element(ptr: Value, gu: GradientState, depth: int = 0) -> Type | None:
    """The type `ptr` is indexed with, the declared type of the local object it is
    the start of, the one type the program indexes from `ptr` with (`h[i].x` after
    `memcpy(h, s, n * sizeof *h)`: `getelementptr %struct.S, ptr %h, i64 %i`), or, for
    a pointer from outside, what `_source_element` finds."""
    located = alloca_offset(ptr, TypeSeeds(gu.layout))
    if located is not None and located[1] == 0 and located[0].count is None:
        return located[0].allocated_type
    own = indexed_type(ptr)
    if own is not None and not _is_byte(own):
        return own
    return _indexed_from(ptr) or _indexed_from_every_source(ptr, gu, depth) or _source_element(ptr, gu, depth)


def _source_element(ptr: Value, gu: GradientState, depth: int) -> Type | None:
    """The element type of a pointer that comes from outside the function's own
    indexing: a parameter's is what its callers agree on, a loaded `P *`'s is the
    record its pointer TBAA tag names (`p1 _ZTS1P`)."""
    if isinstance(ptr, Argument):
        return _agreed_by_callers(ptr, gu, depth)
    if isinstance(ptr, Load) and (tag := ptr.metadata.get("tbaa")) is not None:
        reader = gu.types.analysis.tbaa
        base = reader.access_base(tag)
        info = reader.type_node(base[0]) if base is not None and base[1] == 0 else None
        return pointee_declaration(gu.module, info.name if info is not None else None)
    return None


_MAX_CALLER_DEPTH = 3
"""Callers asked, one above the other, for the element type of a parameter."""


def _agreed_by_callers(arg: Argument, gu: GradientState, depth: int) -> Type | None:
    """The element type every direct call site passes as `arg` (None when one has
    none, they differ, or the callers are unknown)."""
    fn = arg.parent
    original = gu.module.get_function(fn.name or "") if isinstance(fn, Function) else None
    sites = direct_call_sites(gu.module, original) if original is not None and depth < _MAX_CALLER_DEPTH else None
    if not sites:
        return None
    types = {declared_element(call.args[arg.index], gu, depth + 1) if arg.index < len(call.args) else None
             for _, call in sites}
    return types.pop() if len(types) == 1 else None


def _indexed_from_every_source(ptr: Value, gu: GradientState, depth: int) -> Type | None:
    """The one type every buffer a phi or select may choose is indexed with
    (`std::vector`'s data pointer after a loop that grew it: the old buffer or the
    new one, each walked as `getelementptr %struct.P`), when the steps between (a
    loop pointer moving one element at a time, the end of the used part) are whole
    elements; `begin + (pos - begin)` is `pos`; null chooses nothing; a parameter or a loaded
    pointer has the type `_source_element` finds."""
    sources: list[Value] = []
    steps: set[int] = set()
    seeds = TypeSeeds(gu.layout)
    work, seen = [ptr], set()
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if len(seen) > 32:
            return None
        if isinstance(v, Phi):
            work += [value for value, _ in v.incoming]
        elif isinstance(v, Select):
            work += [v.true_value, v.false_value]
        elif isinstance(v, GetElementPtr) and (moved_back := rebased_addresses(v)) is not None:
            work += moved_back
        elif isinstance(v, GetElementPtr) and (off := gep_offset(v, seeds, {})) is not None:
            steps |= {off[0], off[1]}  # `new + used + 16`: whole elements when `used` is
            work.append(v.ptr)
        elif not (isinstance(v, ConstantSimple) and v.keyword in ("null", "poison", "undef")):
            sources.append(v)
    if ptr in sources or not sources:
        return None
    types = {_indexed_from(v) or _source_element(v, gu, depth) for v in sources}
    elem = types.pop() if len(types) == 1 else None
    size = seeds.alloc_size(elem) if elem is not None else None
    return elem if size and all(step % size == 0 for step in steps) else None


def _indexed_from(ptr: Value) -> Type | None:
    """The element type of every `getelementptr T, ptr %ptr, %i` (one variable
    index), when they all agree. Byte offsets (`getelementptr i8, ptr %new, i64
    %used`, where `std::vector` growing puts the new element) declare no type."""
    types = {t for use in ptr.uses
             if isinstance(use.user, GetElementPtr) and use.user.ptr is ptr
             and (t := indexed_type(use.user)) is not None and not _is_byte(t)}
    return types.pop() if len(types) == 1 else None


def _is_byte(t: Type) -> bool:
    """`i8`: LLVM's type for byte offsets, which says nothing of what is there."""
    return isinstance(t, IntType) and t.bits == 8


def walk_steps(ptr: Value, seeds: TypeSeeds) -> set[int]:
    """The strides in which the program walks the memory from `ptr` on: a GEP
    adding a variable multiple of S to it, or a loop phi (reached from `ptr` through
    phis and selects) that steps by a constant S."""
    steps: set[int] = set()
    for v in _chosen_from(ptr, 16):
        if isinstance(v, Phi) and v is not ptr:
            steps |= _phi_steps(v, seeds)
        for use in v.uses:
            user = use.user
            if isinstance(user, GetElementPtr) and user.ptr is v:
                off = gep_offset(user, seeds, {})
                if off is not None and off[0] == 0 and off[1] > 1:
                    steps.add(off[1])
    return steps


def _phi_steps(v: Phi, seeds: TypeSeeds) -> set[int]:
    """S when phi `v` takes `v + S` (a constant GEP of it) as one of its values."""
    steps = set()
    for value, _ in v.incoming:
        if isinstance(value, GetElementPtr) and value.ptr is v:
            off = gep_offset(value, seeds, {})
            if off is not None and off[1] == 0 and off[0] > 1:
                steps.add(off[0])
    return steps
