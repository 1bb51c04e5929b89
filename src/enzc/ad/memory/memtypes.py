"""Adjoints of memory copies by the type of what is copied.

The reverse of `memcpy(dst, src, n)` / `memmove` is, for every floating element
copied, `d_src[i] += d_dst[i]; d_dst[i] = 0` in the element's own type: 8 bytes
of one double give one double adjoint, 8 bytes of two floats two float adjoints,
and integer or pointer bytes none. Type analysis (`TypeResults.copy_layout`)
says which bytes hold what; where it cannot, the element type an allocation or
every access through the copied pointers shows is used, then the records both
pointers are indexed as (`record_elements`: `&b->vals[i]` walks doubles in a
struct that also holds ints, `v[i].x` walks records), and otherwise the copy is a
compile-time error naming it (never a guessed adjoint). Where such records or a
bounded copy's floats are taken whole without proof, the reverse pass checks it
at run time (`copy_checks`).

One helper per float type does the element loop; it walks forwards when the
destination shadow lies above the source shadow and backwards otherwise, which
is what an overlapping `memmove` needs (each adjoint moves before its slot is
reused).
"""

from __future__ import annotations

from math import prod

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.instructions import Alloca, CallBase, Cast, GetElementPtr, Load, Store
from enzc.ir.libc import define_helper
from enzc.ir.module import Function
from enzc.ir.types import I1, I8, I64, PTR, VOID, ArrayType, FloatType, FunctionType, IntType, NamedStructType
from enzc.ir.types import PointerType, StructType, Type, VectorType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.activity import float_leaves
from enzc.ad.analysis.gradient_state import GradientState
from enzc.ad.analysis.runtime_activity import inactive_at_run_time
from enzc.ad.memory.copy_checks import covered_elements, whole_records_check
from enzc.ad.memory.record_elements import declared_element, indexed_below, walk_steps
from enzc.ad.typeanalysis.errors import TypeAnalysisError
from enzc.ad.typeanalysis.indexed_types import declared_segments
from enzc.ad.typeanalysis.offsets import TypeSeeds, alloca_offset, declared_integers, length_multiple
from enzc.ad.typeanalysis.padding import empty_bytes
from enzc.ad.typeanalysis.results import CopyLayout, Segment
from enzc.ad.typeanalysis.typetree import Kind, float_type


def memcpy_adjoint(gu: GradientState, call: CallBase) -> None:
    """Reverse of a copy between two shadowed buffers (original `call`)."""
    layout = copy_layout(gu, call)
    if not layout.float_segments():
        return  # integers and pointers carry no adjoint (pointer shadows moved forward)
    d_dst = gu.lookup(gu.shadow(call.args[0]))
    d_src = gu.lookup(gu.shadow(call.args[1]))
    n = gu.lookup(gu.new_value(call.args[2]))
    if n.type != I64:
        n = gu.b.zext(n, I64, "n")
    b = gu.b
    dst_inactive = inactive_at_run_time(gu, b, d_dst, call.args[0], reverse=True)
    src_inactive = inactive_at_run_time(gu, b, d_src, call.args[1], reverse=True)
    if dst_inactive is None or src_inactive is None:
        emit_layout_adjoint(gu, layout, d_dst, d_src, n)
        return
    # runtime activity: nothing moves when either side is inactive; an active
    # destination overwritten by inactive data loses its adjoint
    emit_layout_adjoint(gu, layout, d_dst, d_src, n, skip=b.or_(dst_inactive, src_inactive, "rt.skip"))
    only_dst = b.and_(src_inactive, b.xor(dst_inactive, ConstantInt(I1, 1), "rt.dst.active"), "rt.drop")
    emit_layout_adjoint(gu, layout, d_dst, d_src, n, skip=b.xor(only_dst, ConstantInt(I1, 1), "rt.keep"),
                        drop=True)


def copy_adjoint_by_bytes(gu: GradientState, owner: CallBase, sizes: list[Value], d_dst: Value, d_src: Value,
                          nbytes: Value) -> None:
    """`d_src += d_dst; d_dst = 0` over `nbytes` (a reverse-pass value) of the
    memory the allocation `owner` of `sizes` bytes (their product) returns: one
    repeated pattern, or records of the one type the program indexes it with."""
    layout = _repeated(gu, owner) or _records_indexed(gu, owner, sizes) or _records_walked(gu, owner, sizes)
    if layout is None:
        raise gu.error(owner, "cannot deduce the element type of memory moved by realloc",
                       "store and load the reallocated memory with its real type (double, float) in the "
                       "differentiated code")
    emit_layout_adjoint(gu, layout, d_dst, d_src, nbytes)


def _records_indexed(gu: GradientState, ptr: Value, sizes: list[Value]) -> CopyLayout | None:
    """The block at `ptr` as records of the one type every index into it uses (`p =
    realloc(p, cap * sizeof *p)`, then `p[i].x`: `getelementptr %struct.P`, after a
    phi), when its size (the product of `sizes`) is a whole number of them."""
    elem = indexed_below(ptr)
    segments = declared_segments(elem, gu.layout) if elem is not None else None
    record = gu.layout.alloc_size_of(elem) if segments is not None else 0
    multiple = prod(_length_multiple(gu, size) for size in sizes)
    if not record or multiple % record:
        return None
    return CopyLayout(tuple(segments), record)  # type: ignore[arg-type]


def _records_walked(gu: GradientState, ptr: Value, sizes: list[Value]) -> CopyLayout | None:
    """The block at `ptr` as records of S bytes when the program walks it in steps
    of S (`(char *)v->data + i * v->elsize` of a generic vector, the size known
    after inlining) and its size is a whole number of them: what type analysis
    shows for the first record, every byte of it known."""
    multiple = prod(_length_multiple(gu, size) for size in sizes)
    for step in sorted(walk_steps(ptr, TypeSeeds(gu.layout))):
        if step > 1 and multiple % step == 0:
            layout = gu.types.records_of((ptr,), step)
            if layout is not None:
                return layout
    return None


def emit_layout_adjoint(gu: GradientState, layout: CopyLayout, d_dst: Value, d_src: Value, n: Value,
                        skip: Value | None = None, drop: bool = False) -> None:
    """`d_src += d_dst; d_dst = 0` over the float segments of `layout` (`drop`: only
    `d_dst = 0`); nothing where run-time flag `skip` is true."""
    b = gu.b
    if layout.checked:
        b.call(whole_records_check(gu), [n, ConstantInt(I64, layout.period)])  # type: ignore[arg-type]
    if layout.period is None:
        reps: Value = ConstantInt(I64, 1)
        stride = 0
    else:
        reps = b.udiv(n, ConstantInt(I64, layout.period), "n.reps")
        stride = layout.period
    if skip is not None:
        reps = b.select(skip, ConstantInt(I64, 0), reps, "rt.reps")
    for seg in layout.float_segments():
        elem = FloatType(seg.type.float_kind)  # type: ignore[arg-type]
        per: Value = ConstantInt(I64, seg.size // seg.type.stride)
        if layout.bounded:  # the elements of the segment the run-time length covers
            per = b.call(covered_elements(gu), [n, ConstantInt(I64, seg.offset), per,
                                                 ConstantInt(I64, seg.type.stride)], "covered")
        dst = b.gep(I8, d_dst, [seg.offset], "d.dst") if seg.offset else d_dst
        src = b.gep(I8, d_src, [seg.offset], "d.src") if seg.offset else d_src
        b.call(_helper(gu, elem, drop), [dst, src, reps, per, ConstantInt(I64, stride)])


# -- which bytes hold floats ----------------------------------------------------------------------


def copy_layout(gu: GradientState, call: CallBase) -> CopyLayout:
    """What `call` copies: from type analysis (bytes of a local object that nothing
    ever writes are uninitialized, no data), else from the buffers' element type."""
    try:
        return gu.types.copy_layout(call, _no_data(gu, call))
    except TypeAnalysisError as err:
        elem = _agreed_element_type(gu, call)
        if elem is not None:
            size = gu.layout.alloc_size_of(elem)
            return CopyLayout((Segment(0, size, float_type(elem.kind)),), size)
        indexed = (_indexed_element_layout(gu, call) or _walked_records_layout(gu, call)
                   or _indexed_element_layout(gu, call, proven=False))
        if indexed is None:
            raise gu.error(call, err.reason, err.hint) from None
        return indexed


def _no_data(gu: GradientState, call: CallBase):
    """`no_data(offset, size)` for the bytes copied by `call`: no data at the source
    (`_no_data_in`), a declared integer field of the local object the
    destination points into (what lands there is an integer, as at the source),
    or an empty member and its padding in either object (`typeanalysis.padding`)."""
    at_src = _no_data_in(gu, call.args[1])
    located = alloca_offset(call.args[0], TypeSeeds(gu.layout))
    padding = _struct_padding(gu, call)
    empty: frozenset[tuple[int, int]] | None = None

    def no_data(offset: int, size: int) -> bool:
        nonlocal empty
        if any(lo <= offset and offset + size <= hi for lo, hi in padding):
            return True
        if at_src is not None and at_src(offset, size):
            return True
        if located is not None and declared_integers(located[0].allocated_type, located[1] + offset,
                                                     located[1] + offset + size, gu.layout):
            return True
        if empty is None:
            empty = _empty_bytes(gu, call)
        return any(lo <= offset and offset + size <= hi for lo, hi in empty)

    return no_data


def _struct_padding(gu: GradientState, call: CallBase) -> tuple[tuple[int, int], ...]:
    """The padding bytes of a struct assignment (`*h = *s`): what its `!tbaa.struct`
    leaves out. A struct's padding holds no value, so its bytes carry no derivative."""
    length = call.args[2]
    md = call.metadata.get("tbaa.struct")
    if md is None or not isinstance(length, ConstantInt):
        return ()
    return gu.types.analysis.tbaa.struct_copy_padding(md, length.value)


def _empty_bytes(gu: GradientState, call: CallBase) -> frozenset[tuple[int, int]]:
    """Byte ranges of the copy that are an empty member and its padding in the
    object either pointer points into."""
    reader, seeds = gu.types.analysis.tbaa, TypeSeeds(gu.layout)
    return empty_bytes(call.args[0], reader, seeds, gu.module) | empty_bytes(call.args[1], reader, seeds, gu.module)


def _no_data_in(gu: GradientState, src: Value):
    """For a copy from a local alloca (at a constant offset): `no_data(offset, size)`,
    whether those copied bytes carry no data: never written (every write at a
    known offset), or declared integer fields of the alloca's type; else None."""
    seeds = TypeSeeds(gu.layout)
    located = alloca_offset(src, seeds)
    if located is None:
        return None
    alloca, start = located
    written = _written_ranges(alloca, seeds)
    if written is None:
        written = [(0, 1 << 62)]  # writes unknown: only declared integer fields count

    def no_data(offset: int, size: int) -> bool:
        lo, hi = start + offset, start + offset + size
        return all(e <= lo or s >= hi for s, e in written) \
            or declared_integers(alloca.allocated_type, lo, hi, gu.layout)

    return no_data


def _written_ranges(alloca: Alloca, seeds: TypeSeeds) -> list[tuple[int, int]] | None:
    """[start, end) byte ranges of `alloca` some instruction may write; None when a
    write is at an unknown offset or the address escapes (a call may write it)."""
    ranges: list[tuple[int, int]] = []
    work: list[Value] = [alloca]
    seen: set[int] = set()
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        located = alloca_offset(v, seeds)
        if located is None:
            return None
        at = located[1]
        for use in v.uses:
            user = use.user
            match user:
                case Load():
                    continue
                case Store() if user.ptr is v and user.value is not v:
                    size = seeds.size(user.value.type)
                    if size is None:
                        return None
                    ranges.append((at, at + size))
                case CallBase():
                    name = (user.called_function.name if user.called_function is not None else None) or ""
                    if name.startswith(("llvm.lifetime.", "llvm.dbg.")):
                        continue
                    copies = name.startswith(("llvm.memcpy", "llvm.memmove"))
                    if copies and use.index == 1:
                        continue  # read by a copy
                    length = user.args[2] if len(user.args) > 2 else None
                    if (copies or name.startswith("llvm.memset")) and use.index == 0 and isinstance(length, ConstantInt):
                        ranges.append((at, at + length.value))
                        continue
                    return None
                case GetElementPtr() | Cast(opcode="bitcast"):
                    work.append(user)
                case _:
                    return None
    return ranges


def _repeated(gu: GradientState, ptr: Value) -> CopyLayout | None:
    """The memory behind original pointer `ptr` as one repeated pattern."""
    memory = gu.types.tree_of(ptr).data0()
    heads = memory.first_level()
    types = set(heads.values())
    if len(types) == 1:
        t = types.pop()
        if t.kind is Kind.FLOAT and (set(heads) == {-1} or sorted(heads) == list(range(0, max(heads) + 1, t.stride))):
            return CopyLayout((Segment(0, t.stride, t),), t.stride)
        if t.kind in (Kind.INTEGER, Kind.POINTER):
            return CopyLayout((), None)
    return None


def _agreed_element_type(gu: GradientState, call: CallBase) -> FloatType | None:
    types = {t for t in (_element_float_type(gu, call.args[0]), _element_float_type(gu, call.args[1]))
             if t is not None}
    return next(iter(types)) if len(types) == 1 else None


def _element_float_type(gu: GradientState, ptr: Value) -> FloatType | None:
    """The one floating type stored in `ptr`'s allocation: its alloca's only leaf
    type, or the only type every load and store through it uses."""
    from enzc.ad.analysis.memory_facts import underlying_object

    base = underlying_object(ptr)
    if isinstance(base, Alloca):
        leaves = float_leaves(base.allocated_type)
        kinds = {t for _, t in leaves}
        whole = gu.layout.alloc_size_of(base.allocated_type)
        if len(kinds) == 1:
            only = next(iter(kinds))
            if isinstance(only, FloatType) and len(leaves) * gu.layout.alloc_size_of(only) == whole:
                return only
        if _declares_other_scalars(base.allocated_type):
            return None  # `struct { double m[4]; int n; double *p; }`: not all one float, whatever is seen
    seen = {(inst.type if isinstance(inst, Load) else inst.value.type).scalar
            for inst in gu.original.instructions()
            if isinstance(inst, (Load, Store)) and underlying_object(inst.ptr) is base}
    if len(seen) == 1 and isinstance(only := next(iter(seen)), FloatType):
        return only
    return None


def _declares_other_scalars(t: Type) -> bool:
    """Whether a declared type holds integers wider than a byte or pointers (a byte
    array is storage of any type)."""
    match t:
        case StructType(elements=els) | NamedStructType(elements=els) if els is not None:
            return any(_declares_other_scalars(e) for e in els)
        case ArrayType(element=e) | VectorType(element=e):
            return _declares_other_scalars(e)
    return isinstance(t, PointerType) or isinstance(t, IntType) and t.bits > 8


def _indexed_element_layout(gu: GradientState, call: CallBase, proven: bool = True) -> CopyLayout | None:
    """The copy as elements of the type its pointers are indexed with
    (`memmove(&b->vals[i + 1], &b->vals[i], ...)`: `getelementptr double, ptr %b,
    i64 %i`; see `indexed_types`) or the declared type of the local object one of them
    starts (`struct S tmp = a[i]`), when they agree and the length is a multiple of
    its size. Unless `proven`, a run-time length nothing shows to be whole records
    is checked at run time instead: `std::vector::insert` copies `pos - begin` bytes,
    `pos` an iterator its caller made, and C++ only ever moves whole objects."""
    elems = {t for t in (declared_element(p, gu) for p in call.args[:2]) if t is not None}
    elem = elems.pop() if len(elems) == 1 else None
    segments = declared_segments(elem, gu.layout) if elem is not None else None
    size = gu.layout.alloc_size_of(elem) if elem is not None else 0
    if segments is None or size == 0:
        return None
    if _length_multiple(gu, call.args[2]) % size == 0:
        return CopyLayout(tuple(segments), size)
    if proven or size == 1 or isinstance(call.args[2], ConstantInt):
        return None
    return CopyLayout(tuple(segments), size, checked=True)


def _length_multiple(gu: GradientState, length: Value) -> int:
    """A number the byte count `length` is always a multiple of (`length_multiple`)."""
    return length_multiple(length, gu.types.analysis.provenance(gu.types.function, {}))


def _walked_records_layout(gu: GradientState, call: CallBase) -> CopyLayout | None:
    """A copy of n records (`std::vector<Q> v(s, s + n)`: `memcpy(.., .., n * 24)`)
    that the program walks in steps of one record from a copied pointer (a pointer
    stepping by 24, or an index scaled by 24): every record holds what type
    analysis shows for the first, its padding no data."""
    seeds = TypeSeeds(gu.layout)
    multiple = _length_multiple(gu, call.args[2])
    no_data = _no_data(gu, call)
    for step in sorted({s for p in call.args[:2] for s in walk_steps(p, seeds)}):
        if step > 1 and multiple % step == 0:
            layout = gu.types.records_layout(call, step, no_data)
            if layout is not None:
                return layout
    return None


# -- the element loop ----------------------------------------------------------------------------------


def _helper(gu: GradientState, elem: FloatType, drop: bool = False) -> Function:
    """`void __enzc_copy_adjoint_<T>(ptr d_dst, ptr d_src, i64 reps, i64 per, i64 stride)`:
    for `reps` blocks `stride` bytes apart, `per` consecutive elements each:
    d_src += d_dst; d_dst = 0 (forwards if d_dst > d_src, else backwards).
    `drop` (`__enzc_drop_adjoint_<T>`): d_dst = 0 only, d_src untouched."""
    return element_loop(gu, elem, "drop_adjoint" if drop else "copy_adjoint")


def element_loop(gu: GradientState, elem: Type, mode: str) -> Function:
    """`void __enzc_<mode>_<T>(ptr dst, ptr src, i64 reps, i64 per, i64 stride)`: for
    `reps` blocks `stride` bytes apart, `per` consecutive elements of type `T` each,
    in the order an overlapping move needs: `copy_adjoint` (src += dst; dst = 0,
    the adjoint of a copy from src to dst), `drop_adjoint` (dst = 0) or `move`
    (dst = src: shadow pointers moved forward with the copy)."""
    name = f"__enzc_{mode}_{elem}"
    fn, fresh = define_helper(gu.module, name, FunctionType(VOID, (PTR, PTR, I64, I64, I64)),
                              ("d_dst", "d_src", "reps", "per", "stride"))
    if not fresh:
        return fn
    d_dst, d_src, reps, per, stride = fn.args
    entry, loop, done = new_block(fn, "entry"), new_block(fn, "loop"), new_block(fn, "done")
    b = IRBuilder(entry)
    total = b.mul(reps, per, "total")
    up = b.icmp("ugt", d_dst, d_src, "up")
    b.cond_br(b.icmp("eq", total, ConstantInt(I64, 0), "empty"), done, loop)
    b.position_at_end(loop)
    k = b.phi(I64, [(ConstantInt(I64, 0), entry)], "k")
    last = b.sub(b.sub(total, ConstantInt(I64, 1), "last"), k, "down")
    # an adjoint moves from dst to src: forwards when dst lies above; a move the other way
    j = b.select(up, last, k, "j") if mode == "move" else b.select(up, k, last, "j")
    r = b.udiv(j, per, "r")
    e = b.urem(j, per, "e")
    size = ConstantInt(I64, gu.layout.alloc_size_of(elem))
    off = b.add(b.mul(r, stride, "r.off"), b.mul(e, size, "e.off"), "off")
    pd = b.gep(I8, d_dst, [off], "pd")
    ps = b.gep(I8, d_src, [off], "ps")
    if mode == "move":
        b.store(b.load(elem, ps, "v", align=1), pd, align=1)  # copied bytes may sit at any offset
    else:
        v = b.load(elem, pd, "v", align=1)  # copied bytes may sit at any offset (packed structs)
        b.store(b.const_zero(elem), pd, align=1)
        if mode == "copy_adjoint":
            b.store(b.fadd(b.load(elem, ps, "s", align=1), v, "sum"), ps, align=1)
    nxt = b.add(k, ConstantInt(I64, 1), "k.next")
    k.add_incoming(nxt, loop)
    b.cond_br(b.icmp("ult", nxt, total, "more"), loop, done)
    b.position_at_end(done)
    b.ret_void()
    return fn
