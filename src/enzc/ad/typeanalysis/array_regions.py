"""Which bytes a GEP's variable index may walk: the extent of the indexed array.

`q = p + c + k*period` for an unknown `k`. Relating `q`'s pointee to all of
`p`'s modulo `period` treats the whole object as one array: in `struct { int n;
double v[4]; double *w; }` indexed as `s->v[i]`, `n` and `w` would fold into
the elements of `v` (a conflict, or a made-up fact). A C array index stays
inside its array, so when the array's extent is known only its elements are
related, and when it is not, only the element at `k = 0` (what Enzyme relates)
— unless the index walks the object from its start, where the object may well
be the array (`double *x` indexed as `x[i]`).

The extent comes from a declared type: an array level of the GEP's own source
type (`getelementptr [4 x double], ptr %v, i64 0, i64 %i`, what -O0 emits), or
the declared type of the local or global the pointer is a constant offset into
(`%struct.S = { i32, [4 x double], ptr }` for an `alloca %struct.S`, what -O2
keeps), or the next member in clang's struct TBAA at the loads and stores around
the object. The same extent bounds a constant offset into an array field
(`field_array`): `&t.v[0]` given to a helper sees v, not the fields after it.
"""

from __future__ import annotations

from typing import Callable

from enzc.ir.datalayout import DataLayoutError
from enzc.ir.instructions import Alloca, GetElementPtr, Load, Store
from enzc.ir.module import GlobalVariable
from enzc.ir.types import ArrayType, NamedStructType, StructType, Type
from enzc.ir.values import ConstantInt, Value

from enzc.ad.typeanalysis.index_ranges import index_range
from enzc.ad.typeanalysis.offsets import TypeSeeds, gep_offset, is_union, strip_constant_offsets
from enzc.ad.typeanalysis.tbaa import TBAAReader

_MAX_VISITS = 256
"""Pointers visited when looking for access tags around an indexed object."""


def elements_reached(gep: GetElementPtr, base: Value, const: int, period: int, seeds: TypeSeeds,
                     memo: dict[Value, int], tbaa: TBAAReader) -> int | None:
    """How many elements `gep = base + const + k*period` may point at (k = 0, 1,
    ...), or None when it walks the object from its start (`x[i]`, `a[n - 1]`),
    which may be one array: then every element from `base` on counts. A pointer
    a variable offset into an object is not its start."""
    root, offset = strip_constant_offsets(base, seeds, memo)
    start = offset + const
    ends = []
    own = _own_array_end(gep, seeds)
    if own is not None:
        own_root, own_offset = strip_constant_offsets(gep.ptr, seeds, memo)
        if own_root is root:
            ends.append(own_offset + own)
    declared = _declared_type(root)
    size = seeds.alloc_size(declared) if declared is not None else None
    if declared is not None and start >= 0:
        region = array_region(declared, start, period, seeds)
        if region is not None:
            ends.append(region[1])
    member = _tagged_member_end(root, start, seeds, tbaa)
    if member is not None:
        ends.append(member)
    inside = isinstance(root, GetElementPtr)  # past a variable offset (`&rec[k].m[c ? 1 : 0]`): not a start
    if start <= 0 and not inside and (not ends or (size is not None and min(ends) >= size)):
        count = None
    else:
        count = max(1, -(-(min(ends) - start) // period)) if ends else 1
    counted = _counted_walk_end(gep, start, seeds)  # only ever narrows: a bound that is too wide relates
    if counted is not None:  # fields the index never reaches (the record's pointer into its doubles)
        within = max(1, -(-(counted - start) // period))
        if count is not None:
            count = min(count, within)
        elif size is None or counted < size:  # (a loop over all of a declared object: every element)
            count = within
    return count


def _counted_walk_end(gep: GetElementPtr, start: int, seeds: TypeSeeds) -> int | None:
    """Where a walk by loop counters ends: every variable index of the GEP is a
    counter of a counted loop (`counted_loop_bound`), or a sum, constant multiple,
    quotient or remainder by a constant of such values (`m[j / 3][j % 3]`, `(char *)p
    + i * 24`), so the GEP reaches at most its largest value's bytes past `start`
    (a record copied to the heap, then its array member read in such a loop: no
    declared type says where the array ends)."""
    reach = 0
    t: Type = gep.source_type
    for n, idx in enumerate(gep.indices):
        if n > 0:
            match t:
                case StructType() | NamedStructType() if isinstance(idx, ConstantInt):
                    t = t.elements[idx.value]  # type: ignore[index]
                    continue
                case ArrayType(element=e):
                    t = e
                case _:
                    return None
        scale = seeds.alloc_size(t)
        if scale is None:
            return None
        if not isinstance(idx, ConstantInt):
            bounds = index_range(idx)
            if bounds is None or bounds[0] < 0:
                return None
            reach += bounds[1] * scale
    size = seeds.alloc_size(t)
    return start + reach + size if reach and size else None


def _tagged_member_end(root: Value, start: int, seeds: TypeSeeds, tbaa: TBAAReader) -> int | None:
    """Where the struct member holding byte `start` of `root`'s object ends, by the
    access tags of loads and stores at constant offsets from `root` in its function
    (`load i32, (root + 40), !tbaa {S, int, 40}`: an `S` starts at `root`, and its
    next member after the one at `start` bounds it; clang tags a member array as
    `omnipotent char`, its elements by their scalar type alone)."""
    ends = []
    work, seen = [(root, 0)], set()
    while work and len(seen) < _MAX_VISITS:
        v, d = work.pop()
        if v in seen:
            continue
        seen.add(v)
        for use in list(v.uses):
            user = use.user
            if isinstance(user, GetElementPtr) and user.ptr is v:
                off = gep_offset(user, seeds, {})
                if off is not None and off[1] == 0:
                    work.append((user, d + off[0]))
            elif isinstance(user, (Load, Store)) and user.ptr is v and "tbaa" in user.metadata:
                base = tbaa.access_base(user.metadata["tbaa"])
                node = tbaa.type_node(base[0]) if base is not None else None
                if node is None or base is None:
                    continue
                at = start - (d - base[1])  # `start` inside the tagged object
                offsets = sorted({o for _, o, _ in node.members if o is not None})
                after = [o for o in offsets if o > at]
                if at >= 0 and offsets and offsets[0] <= at and after:
                    ends.append(start + after[0] - at)
    return min(ends) if ends else None


def _declared_type(root: Value) -> Type | None:
    """The C type of the object `root` starts: a local's or a global's."""
    if isinstance(root, Alloca) and root.count is None:
        return root.allocated_type
    if isinstance(root, GlobalVariable):
        return root.value_type
    return None


def _own_array_end(gep: GetElementPtr, seeds: TypeSeeds) -> int | None:
    """Where the array the GEP's one variable index (past the first) walks ends,
    in bytes from the GEP's pointer operand; None when the first index is
    variable, no array level bounds it, or two indices vary (`ps[i].pos[d]`:
    the outer array holds the records' other fields too)."""
    if sum(not isinstance(idx, ConstantInt) for idx in gep.indices) != 1:
        return None
    t: Type = gep.source_type
    before = 0
    for n, idx in enumerate(gep.indices):
        if n == 0:
            if not isinstance(idx, ConstantInt):
                return None
            size = seeds.alloc_size(t)
            if size is None:
                return None
            before += idx.value * size
            continue
        match t:
            case StructType() | NamedStructType() if isinstance(idx, ConstantInt):
                try:
                    before += seeds.layout.element_offset(t, idx.value)
                except (DataLayoutError, IndexError):
                    return None
                t = t.elements[idx.value]  # type: ignore[index]
            case ArrayType(count=count, element=e):
                stride = seeds.alloc_size(e)
                if stride is None:
                    return None
                if not isinstance(idx, ConstantInt):
                    return before + count * stride
                before += idx.value * stride
                t = e
            case _:
                return None
    return None


def array_region(t: Type, offset: int, period: int, seeds: TypeSeeds) -> tuple[int, int] | None:
    """`[lo, hi)`: the bytes of the array of declared type `t` that holds byte
    `offset` and that an index stepping by `period` bytes walks — an array whose
    element `period` is a multiple of, widened over arrays of arrays (one block of
    one element type), not over the structs around it."""
    match t:
        case StructType() | NamedStructType():
            return _in_field(t, offset, seeds, lambda e, o: array_region(e, o, period, seeds))
        case ArrayType(count=count, element=e):
            stride = seeds.alloc_size(e)
            if not stride:
                return None
            at = offset - offset % stride
            inner = array_region(e, offset % stride, period, seeds)
            if not count:
                return None  # a flexible array member (`double v[]`): as long as the block
            if period % stride == 0 or (inner is not None and inner == (0, stride) and isinstance(e, ArrayType)):
                return 0, count * stride
            return (inner[0] + at, inner[1] + at) if inner is not None else None
    return None


def field_array(base: Value, const: int, seeds: TypeSeeds, memo: dict[Value, int]) -> tuple[int, int] | None:
    """`[lo, hi)`, in bytes from `base + const`, of the array of scalars holding
    that byte in the declared type of the local or global `base` points into
    (`&t.v[1]` in `struct { int n; double v[4]; double *w; } t`: -8, 24), else
    None. C pointer arithmetic stays inside that array."""
    root, offset = strip_constant_offsets(base, seeds, memo)
    declared = _declared_type(root)
    start = offset + const
    region = _scalar_array(declared, start, seeds) if declared is not None and start >= 0 else None
    return (region[0] - start, region[1] - start) if region is not None else None


def _scalar_array(t: Type, offset: int, seeds: TypeSeeds) -> tuple[int, int] | None:
    """`[lo, hi)` of the array of scalars (or of arrays of them) in `t` holding byte
    `offset`: not an array of records, which holds other fields too, and not where a
    nested struct starts (a pointer there may be to the struct as well as to its
    first array: Eigen's evaluators start with their `dims`)."""
    match t:
        case StructType() | NamedStructType():
            return _in_field(t, offset, seeds,
                             lambda e, o: None if o == 0 and _is_struct(e) else _scalar_array(e, o, seeds))
        case ArrayType(count=count, element=e):
            stride = seeds.alloc_size(e)
            if not stride:
                return None
            if not _is_struct(e):
                return (0, count * stride) if count else None  # `double v[]`: as long as the block
            at = offset - offset % stride
            inner = _scalar_array(e, offset % stride, seeds) if offset % stride else None
            return (inner[0] + at, inner[1] + at) if inner is not None else None
    return None


def _is_struct(t: Type) -> bool:
    return isinstance(t, (StructType, NamedStructType))


def _in_field(t: StructType | NamedStructType, offset: int, seeds: TypeSeeds,
              inner: Callable[[Type, int], tuple[int, int] | None]) -> tuple[int, int] | None:
    """`inner(field type, offset in it)` for the field of struct `t` holding byte
    `offset`, moved to `t`'s offsets; None for a union or no such field."""
    if t.elements is None or is_union(t):
        return None
    try:
        offsets = seeds.layout.struct_layout(t).offsets
    except DataLayoutError:
        return None
    for off, e in zip(offsets, t.elements):
        size = seeds.alloc_size(e)
        if size is not None and off <= offset < off + size:
            found = inner(e, offset - off)
            return (found[0] + off, found[1] + off) if found is not None else None
    return None
