"""Integer loads and stores that move floats or pointers (as optimized code does).

LLVM turns small copies into integer moves: `memcpy(d, s, 8)` becomes
`%v = load i64, ptr %s` / `store i64 %v, ptr %d`, whatever the bytes hold. Between
memory with shadows the derivative must follow them, so before differentiating,
such moves are given their real type from type analysis:

    %v = load i64, ptr %s        ->  %v.f = load double, ptr %s
                                     %v = bitcast double %v.f to i64
    store i64 %v, ptr %d         ->  store double %v.f, ptr %d      (the bits of a load above)

(`<2 x float>` for two floats, `ptr` with `ptrtoint`/`inttoptr` for pointers,
whose shadows then move too; an `inttoptr` of such loaded bits becomes the loaded
pointer). Bytes that hold integers stay as they are. A move whose bytes mix
floats and integers (a `struct { float v; int id; }` copied as `i64`) is split
into one typed access per field (`intpieces`). Where type analysis has no answer
the type the pointer is indexed with decides (`typeanalysis.indexed_types`). A
store of bits that carry nothing active over shadowed memory (`memset(x, 0, 8)`,
a double copied from a constant table: `store i64 <bits>`) takes the type of the
memory it overwrites, so the shadow of the overwritten floats is cleared as for a
`store double`. A floating or unknown-typed integer value that reaches shadowed
memory any other way (integer arithmetic, phis of bits) is a compile-time error
naming it. The bits of an active float passed to a defined callee as an integer
argument go to a clone of it that takes the float (`float_bit_args`).
"""

from __future__ import annotations

from collections.abc import Callable

from enzc.ir.builder import IRBuilder
from enzc.ir.datalayout import DataLayout
from enzc.ir.instructions import BinaryOp, CallBase, Cast, Freeze, GetElementPtr, InsertElement, InsertValue, Instruction
from enzc.ir.instructions import Alloca, ExtractElement, Load, Phi, ShuffleVector
from enzc.ir.instructions import Compare, Ret, Select, Store
from enzc.ir.module import Function, Module
from enzc.ir.types import PTR, FloatType, IntType, PointerType, Type, VectorType
from enzc.ir.values import Argument, Constant, ConstantInt, Use, Value

from enzc.ad.analysis.activity import Activity
from enzc.ad.analysis.memory_facts import underlying_object
from enzc.ad.analysis.integer_addresses import integer_address
from enzc.ad.analysis.uses import derived_addresses, reaches
from enzc.ad.memory.float_bit_args import pass_float_bits_as_floats
from enzc.ad.memory.intpieces import Piece, Splitter, constant_piece
from enzc.ad.typeanalysis.analysis import TypeAnalysis
from enzc.ad.typeanalysis.indexed_types import indexed_segments
from enzc.ad.typeanalysis.offsets import TypeSeeds, alloca_offset, declared_field
from enzc.ad.typeanalysis.results import Segment, TypeResults
from enzc.ad.typeanalysis.tbaa import INTEGER_TYPE_NAMES, TBAAReader, is_pointer_name
from enzc.ad.typeanalysis.typetree import INTEGER, BaseType, Kind, float_type

Moved = Type | tuple[Piece, ...] | str | None
"""What an integer move really moves: a float, vector or pointer type, the typed
pieces of a mix, None for integers, or why it cannot be told."""


_HINT = ("copy the values as double/float (not through integer types or unions) in the "
         "differentiated code, or copy whole objects with memcpy")


def retype_integer_moves(module: Module, layout: DataLayout, fn: Function, activity: Activity,
                         reanalyze: Callable[[], Activity], types: TypeAnalysis,
                         lower_sign_bits: Callable[[], None]) -> Activity:
    """Rewrite integer moves of floats/pointers touching shadowed memory in `fn` (the
    private copy being differentiated); returns the activity of the result
    (`reanalyze()` recomputes it after a rewrite, which may shadow more memory).
    `types` is the module's type analysis. A store whose bytes `fn` alone cannot
    type is asked again in the context all of `fn`'s call sites agree on. After each
    round of rewrites `lower_sign_bits()` (`synth/float_bit_ops`) turns sign-bit
    operations on the bits just typed into float operations: memory they write then
    has a shadow, and the next round sees the moves that read it."""
    from enzc.ad.diagnostics import ad_error

    settled: set[int] = set()
    """Moves found to hold integers (they stay)."""
    splitter = Splitter()
    while True:
        candidates = [i for i in fn.instructions()
                      if id(i) not in settled and id(i) not in splitter.typed and _touches_shadow(i, activity)]
        candidates.sort(key=lambda i: not isinstance(i, Load))  # loads first: stores reuse their pieces
        if not candidates:
            break
        results, tbaa = types.analyze(fn), TBAAReader(module)
        reals = [_moved_type(results, tbaa, inst, layout, activity)
                 for inst in candidates]  # all before rewriting: the results describe these values
        if any(_undecided(inst, real, activity) for inst, real in zip(candidates, reals)):
            reals = _by_call_sites(types, tbaa, fn, candidates, reals, layout, activity)
        reals = _words_by_callers(types, tbaa, fn, candidates, reals, layout)
        changed = False
        for inst, real in zip(candidates, reals):
            if isinstance(inst, Store) and (known := _known_bits(inst.value, splitter)) is not None:
                real = known  # the bits of a typed value (a load retyped or split before): that type
            if _undecided(inst, real, activity):
                raise ad_error(module, inst, fn.name or "?",
                               f"cannot tell whether the {inst.value.type} stored here holds floating-point "
                               f"data: {real}", _HINT)
            if real is None or isinstance(real, str):
                settled.add(id(inst))
                continue
            if isinstance(real, tuple) and isinstance(inst, Store) and _may_carry_active_bits(inst.value, activity) \
                    and splitter.pieces_of(inst.value) != real:
                raise ad_error(module, inst, fn.name or "?",
                               f"cannot tell which bytes of the {inst.value.type} stored here hold floating-point "
                               "data: they mix types and were not loaded as one typed object", _HINT)
            changed = True
            if isinstance(real, tuple):
                if isinstance(inst, Load):
                    splitter.split_load(inst, real)
                else:
                    splitter.split_store(inst, real)  # type: ignore[arg-type]
            elif isinstance(inst, Load):
                _retype_load(inst, real)
            else:
                _retype_store(inst, real)  # type: ignore[arg-type]
        if not changed:
            break
        splitter.remove_unused()
        lower_sign_bits()  # sign steps on bits just typed become float operations, so what they store is active
        types.forget(fn)  # its body changed
        activity = reanalyze()
    if pass_float_bits_as_floats(module, fn, activity.varied):
        activity = reanalyze()
    _check_integer_pointers(module, fn, activity)
    _check_float_bits(module, fn, activity)
    return activity


_MIXED = "its words hold floating-point data and integers alike (what its callers pass, its own types)"


def _copies_mixed_word(types: TypeResults, inst: Instruction) -> bool:
    """A word loaded and stored as an integer where type analysis finds floats and
    integers alike (a `long *` walk over a struct of doubles and longs): neither its
    `!tbaa` tag nor its indexing type tells which this word is."""
    return isinstance(inst, Store) and isinstance(inst.value, Load) \
        and any(s.type.kind is Kind.CONFLICT for s in types.value_layout(inst.value))


def _words_by_callers(types: TypeAnalysis, tbaa: TBAAReader, fn: Function, candidates: list[Instruction],
                      reals: list[Moved], layout: DataLayout) -> list[Moved]:
    """`reals`, with the integer word copies (a load only stored, a store of a load)
    taken as integers, other than of a struct member (`_member_access`), re-decided
    by what `fn`'s call sites pass: a helper copying
    words through `void *` knows nothing of the memory on its own, so its tags or
    indexing type (`long *`) decided them. Words the callers show to be floats or
    pointers get that type; words they show to be floats and integers alike
    (`_copies_mixed_word`) are undecided."""
    words = [i for i, (inst, real) in enumerate(zip(candidates, reals))
             if real is None and _word_copy(inst) and _walks_arguments(inst) and not _member_access(tbaa, inst)]
    by_callers = types.call_site_results(fn) if words else None
    if by_callers is None:
        return reals
    out = list(reals)
    for i in words:
        inst = candidates[i]
        value = inst if isinstance(inst, Load) else inst.value  # type: ignore[attr-defined]
        segments = by_callers.value_layout(value)
        if any(seg.type.kind is Kind.CONFLICT for seg in segments):
            out[i] = _MIXED
        elif any(seg.type.kind in (Kind.FLOAT, Kind.POINTER) for seg in segments):
            out[i] = _from_segments(segments, value.type, layout)
    return out


def _walks_arguments(inst: Instruction) -> bool:
    """Whether the word a copy moves is read or written at a run-time index into
    memory the function's pointer arguments point to (a word-by-word loop over what
    its callers pass; a word at a fixed offset, or in an array member at one, is a
    member, typed by its tag)."""
    ptrs = [inst.ptr] if isinstance(inst, Load) else [inst.ptr, inst.value.ptr]  # type: ignore[attr-defined]
    return any(isinstance(p, GetElementPtr) and not all(isinstance(i, Constant) for i in p.indices)
               and isinstance(underlying_object(p), Argument) and not _member_array(p) for p in ptrs)


def _member_access(tbaa: TBAAReader, inst: Instruction) -> bool:
    """Whether the access's `!tbaa` tag names a member of a struct (`this->size`): its
    type is the declared member's, not what a `long *` walk assumes."""
    tag = inst.metadata.get("tbaa")
    if tag is None:
        return False
    ops = tbaa.operands(tag)
    if len(ops) < 3:
        return False
    base, access = tbaa.type_node(ops[0]), tbaa.type_node(ops[1])
    return base is not None and access is not None and base.name != access.name


def _word_copy(inst: Instruction) -> bool:
    """A load whose value is only stored, or a store of a loaded value."""
    if isinstance(inst, Store):
        return isinstance(inst.value, Load)
    return is_word_load(inst)


def is_word_load(inst: Value) -> bool:
    """A load whose value is only stored (the read of a word copy)."""
    return isinstance(inst, Load) and bool(inst.uses) and all(
        isinstance(u.user, Store) and u.index == 0 for u in inst.uses)


def _known_bits(value: Value, splitter: Splitter) -> Moved:
    """What integer `value` is, when it is the bits of a typed value: a float, float
    vector or pointer cast to an integer (also after sign-bit steps on the bits of
    floats: `and`/`or`/`xor` with a constant, lane shuffles), or the integer rebuilt
    from a split load."""
    while isinstance(value, (BinaryOp, ShuffleVector)):
        operands = [o for o in value.operands[:2] if not isinstance(o, Constant)]
        if len(operands) != 1 or isinstance(value, BinaryOp) and value.opcode not in ("and", "or", "xor"):
            break
        value = operands[0]
    if isinstance(value, Cast) and value.opcode in ("bitcast", "ptrtoint"):
        source = value.operand(0).type
        if isinstance(source.scalar, FloatType) or source == PTR:
            return source
    return splitter.pieces_of(value)


def _undecided(inst: Instruction, real: Moved, activity: Activity) -> bool:
    """A store whose bytes have no known type while they may carry active data."""
    return isinstance(real, str) and isinstance(inst, Store) and _may_carry_active_bits(inst.value, activity)


def _by_call_sites(types: TypeAnalysis, tbaa: TBAAReader, fn: Function, candidates: list[Instruction],
                   reals: list[Moved], layout: DataLayout, activity: Activity) -> list[Moved]:
    """The moves without a known type typed from what every call site of `fn` says of
    its arguments (a helper that copies whatever its caller hands it, typed there)."""
    by_callers = types.call_site_results(fn)
    if by_callers is None:
        return reals
    return [_moved_type(by_callers, tbaa, inst, layout, activity) if isinstance(real, str) else real
            for inst, real in zip(candidates, reals)]


def _check_integer_pointers(module: Module, fn: Function, activity: Activity) -> None:
    """A pointer into shadowed memory rebuilt from an integer (`inttoptr` after
    pointer arithmetic on integers) loses its shadow: an error, not a zero derivative."""
    from enzc.ad.diagnostics import ad_error

    for inst in fn.instructions():
        if (isinstance(inst, Cast) and inst.opcode == "inttoptr" and not activity.has_shadow(inst)
                and _may_carry_active_bits(inst.operand(0), activity, arithmetic=True)):
            raise ad_error(module, inst, fn.name or "?",
                           "a pointer into memory with a shadow is rebuilt from an integer (inttoptr); "
                           "its shadow cannot be followed",
                           "do the address arithmetic on pointers (p + i), not on integers (uintptr_t)")
        if activity.has_shadow(inst) and integer_address(inst) is not None:
            _check_aligned_comparisons(module, fn, inst)


def _check_aligned_comparisons(module: Module, fn: Function, address: Instruction) -> None:
    """An address aligned by integer arithmetic compared with another address (Eigen's
    `handmade_aligned_realloc`: has the aligned start moved?): the shadow block's
    alignment differs from the primal's, so the answer may differ for the shadows,
    and the derivative follows the primal's branch."""
    from enzc.ad.diagnostics import ad_error

    for pointer in derived_addresses(address):
        for user in pointer.users:
            if isinstance(user, Compare) and not all(isinstance(o, Constant) or o is pointer for o in user.operands):
                raise ad_error(module, user, fn.name or "?",
                               "an address aligned by integer arithmetic is compared with another address: the "
                               "shadow memory's alignment differs, so the comparison may come out differently "
                               "for the derivative's memory",
                               "allocate the block with aligned_alloc/posix_memalign (or malloc when its "
                               "alignment is enough) instead of aligning it by hand")


def _check_float_bits(module: Module, fn: Function, activity: Activity) -> None:
    """The bits of an active float reinterpreted as an integer (`bitcast double to
    i64`) that carry on as bits (integer arithmetic, then a float again, memory, a
    call, the result): no adjoint can follow them, so stop instead of a zero
    derivative. Moves into memory were given their float type above. Bits that end
    in a value conversion (`sitofp`: a tagged union's integer reading of them) or a
    comparison have no derivative to follow."""
    from enzc.ad.diagnostics import ad_error

    for inst in fn.instructions():
        if (isinstance(inst, Cast) and inst.opcode == "bitcast" and inst.operand(0) in activity.varied
                and not isinstance(inst.type.scalar, (FloatType, PointerType))
                and _bits_leave(inst, activity)):
            raise ad_error(module, inst, fn.name or "?",
                           f"the bits of an active {inst.operand(0).type} are reinterpreted as {inst.type} "
                           "and carried on (to a call, the result, or integer arithmetic on the way to "
                           "them): the derivative cannot follow them", _HINT)


def _bits_leave(bits: Instruction, activity: Activity) -> bool:
    """Whether integer `bits` reach (through integer dataflow) a call that may use
    them, a `ret`, a store into shadowed memory or on the way to the result, or a
    cast back to a float or pointer on the way to it."""
    from enzc.ad.analysis.calls import CallKind, classify

    def hit(use: Use) -> bool:
        user = use.user
        if isinstance(user, Ret):
            return True
        if isinstance(user, Store):
            return activity.has_shadow(user.ptr) or user in activity.useful
        if isinstance(user, Cast) and user.opcode in ("bitcast", "inttoptr") \
                and isinstance(user.type.scalar, (FloatType, PointerType)):
            return user in activity.useful
        return (isinstance(user, CallBase) and use.index < len(user.args)
                and classify(user, lambda _: False) is not CallKind.INACTIVE)

    def passes_on(user: Instruction) -> bool:
        return isinstance(user, (BinaryOp, Cast, Phi, Select, Freeze, InsertValue, InsertElement, ExtractElement,
                                 ShuffleVector)) \
            and not isinstance(user.type.scalar, (FloatType, PointerType))

    return reaches(bits, passes_on, hit)


def _touches_shadow(inst: Instruction, activity: Activity) -> bool:
    match inst:
        case Load():
            return _wide_int(inst.type) and activity.has_shadow(inst.ptr) and not inst.volatile
        case Store():
            return (_wide_int(inst.value.type) and not inst.volatile
                    and (activity.has_shadow(inst.ptr) or _may_carry_active_bits(inst.value, activity)))
    return False


def _moved_type(types: TypeResults, tbaa: TBAAReader, inst: Instruction, layout: DataLayout,
                activity: Activity) -> Moved:
    """What an integer move really moves (see `_from_segments`): an integer when its
    own `!tbaa` tag or the declared type of the local object it touches says so
    (only integers are taken from there: a declared pointer may point at chars), else
    what type analysis says of the moved value, or where it has no answer what the
    type the pointer is indexed with declares (`indexed_types`). A store of bits that carry nothing
    active (a constant: `memset(&x, 0, 8)` or a double copied from a constant table
    become `store i64`) takes the type of the memory it overwrites instead, so that
    the shadow of overwritten floats is cleared like for a `store double`. A load
    whose bits the program itself casts to a float is that float first (a tagged
    union read as `i64`, then `bitcast` or `sitofp` by the tag: whatever the
    memory's other types, where the float is used these bytes are one)."""
    if isinstance(inst, Load) and (as_float := _float_cast_of(inst)) is not None:
        return as_float
    if isinstance(_declared(inst, layout), IntType):
        return None
    value = inst if isinstance(inst, Load) else inst.value  # type: ignore[attr-defined]
    if _tagged_pointer(tbaa, inst, layout):
        return PTR
    if _tagged_integer(tbaa, inst) and _local_word_copy(inst):
        return None  # a swap in a local object's int array (Eigen's permutation indices)
    if _copies_mixed_word(types, inst):
        return _MIXED
    if _tagged_integer(tbaa, inst):
        return None
    if isinstance(inst, Load) and (as_float := _bits_become_float(inst, layout, types)) is not None:
        return as_float
    size = layout.size_of(value.type)
    declared = indexed_segments(inst.ptr, size, layout)  # type: ignore[attr-defined]
    if isinstance(inst, Store) and activity.has_shadow(inst.ptr) and not _may_carry_active_bits(value, activity):
        memory = types.memory_layout(inst.ptr, 0, size)
        if declared is not None and any(s.type.kind is Kind.CONFLICT for s in memory):
            memory = declared
        return _from_segments(memory, value.type, layout, overwrite=True)
    real = _from_segments(types.value_layout(value), value.type, layout)
    if isinstance(real, str) and isinstance(inst, Load) and declared is None:
        declared = _declared_by_stores(inst, size, layout)  # a load only stored: where it goes
    if isinstance(real, str) and declared is not None:
        by_declared = _from_segments(declared, value.type, layout)
        if by_declared is None and _word_copy(inst):
            # `long *` over any memory: a word-by-word copy's type is no evidence
            return "only its integer type says what it copies"
        return by_declared
    return real


def _float_cast_of(load: Load) -> Type | None:
    """The float type (scalar or vector) a `bitcast` of `load`'s value gives."""
    for use in load.uses:
        user = use.user
        if isinstance(user, Cast) and user.opcode == "bitcast" and isinstance(user.type.scalar, FloatType):
            return user.type
    return None


def _bits_become_float(load: Load, layout: DataLayout, types: TypeResults) -> Type | None:
    """The floats `load` holds when the program turns its bits into floats after
    integer operations on them (`bits & ~sign`, a lane shuffle, then `bitcast` to
    `double`: an absolute value done on bits, which the optimizer makes of SIMD
    `and` masks), or stores them so into memory of floats (`_mm_xor_si128` of a
    loaded pair, stored: a negated copy): loaded as an integer, nothing would carry
    their derivative. Typed as floats, the sign-bit steps become float operations
    (`synth/float_bit_ops`) and any other integer arithmetic on them a located
    error (`_check_float_bits`)."""
    found: list[FloatType] = []

    def hit(use: Use) -> bool:
        user = use.user
        if isinstance(user, Cast) and user.opcode == "bitcast" and isinstance(user.type.scalar, FloatType):
            found.append(user.type.scalar)  # type: ignore[arg-type]
            return True
        if isinstance(user, Store) and use.index == 0 and user.value is not load:
            kind = _one_float(types.memory_layout(user.ptr, 0, layout.size_of(user.value.type)))
            if kind is not None:
                found.append(kind)
                return True
        return False

    def passes_on(user: Instruction) -> bool:
        return isinstance(user, (BinaryOp, Phi, Select, Freeze, InsertElement, ExtractElement, ShuffleVector)) \
            and isinstance(user.type.scalar, IntType)

    if not reaches(load, passes_on, hit):
        return None
    lane, total = layout.size_of(found[0]) * 8, _bits(load.type)
    if total == lane:
        return found[0]
    return VectorType(total // lane, found[0]) if total % lane == 0 else None


def _one_float(segments: list[Segment]) -> FloatType | None:
    """The float type memory of these segments holds throughout, if one."""
    kinds = {seg.type.float_kind if seg.type.kind is Kind.FLOAT else None for seg in segments}
    kind = kinds.pop() if len(kinds) == 1 else None
    return FloatType(kind) if kind is not None else None  # type: ignore[arg-type]


def _declared_by_stores(load: Load, size: int, layout: DataLayout) -> list[Segment] | None:
    """The declared segments every store of `load`'s value agrees on, if those
    stores are all its users (a struct copied from a place type analysis cannot
    type to one whose indexing type declares it)."""
    found: list[list[Segment] | None] = [indexed_segments(u.user.ptr, size, layout)
                                         if isinstance(u.user, Store) and u.index == 0 else None
                                         for u in load.uses]
    if not found or any(f is None or f != found[0] for f in found):
        return None
    return found[0]


def _declared(inst: Instruction, layout: DataLayout) -> Type | None:
    """The field of a local object's declared type the move touches exactly (Eigen
    copies a `variable_if_dynamic` size as `i64` between objects too big for type
    trees to describe byte by byte); None when it says nothing."""
    located = alloca_offset(inst.ptr, TypeSeeds(layout))  # type: ignore[attr-defined]
    if located is None:
        return None
    alloca, offset = located
    size = layout.size_of(inst.type if isinstance(inst, Load) else inst.value.type)  # type: ignore[attr-defined]
    return declared_field(alloca.allocated_type, offset, size, layout)


def _local_word_copy(inst: Instruction) -> bool:
    """A word copy whose both ends are in this function's own stack objects or in an
    array member of an object it is handed (`this->indices[i]`: a run-time index
    into an array at a fixed offset). Type analysis may find floats and integers
    alike where such an index could reach (an index array beside a matrix in one
    object), but the member is the program's own, so the access's integer tag is
    its type; a helper walking a `long *` argument itself (memory its caller
    typed) is not."""
    ends = [inst.ptr] if isinstance(inst, Load) else [inst.ptr, getattr(inst.value, "ptr", None)]  # type: ignore[attr-defined]
    return all(end is not None and (isinstance(underlying_object(end), Alloca) or _member_array(end)) for end in ends)


def _member_array(ptr: Value) -> bool:
    """`gep T, (gep i8, %object, C), %i` with constant C > 0: an element of an array
    member of `%object`."""
    if not isinstance(ptr, GetElementPtr) or all(isinstance(i, Constant) for i in ptr.indices):
        return False
    base = ptr.ptr
    return isinstance(base, GetElementPtr) and all(isinstance(i, ConstantInt) for i in base.indices) \
        and any(i.value != 0 for i in base.indices)  # type: ignore[attr-defined]


def _tagged_integer(tbaa: TBAAReader, inst: Instruction) -> bool:
    """The access's own `!tbaa` tag names an integer type (`long`, `int`, ...): by
    C's aliasing rules the bytes it moves are an integer, whatever type analysis
    joined into them (a red-black tree's header node and its count share offsets
    with the nodes' keys and links)."""
    tag = inst.metadata.get("tbaa")
    return tag is not None and tbaa.access_type_name(tag) in INTEGER_TYPE_NAMES


def _tagged_pointer(tbaa: TBAAReader, inst: Instruction, layout: DataLayout) -> bool:
    """The access's own `!tbaa` tag names a pointer type (`p2 double`: a lambda's
    reference capture copied as `i64` by `std::function`'s manager) and it moves
    one pointer's bytes: a pointer, whatever type analysis joined into where it
    goes (a pointer to the source stored there on another path)."""
    tag = inst.metadata.get("tbaa")
    moved = inst.type if isinstance(inst, Load) else inst.value.type  # type: ignore[attr-defined]
    return tag is not None and layout.size_of(moved) == layout.size_of(PTR) \
        and is_pointer_name(tbaa.access_type_name(tag))


def _wide_int(t: Type) -> bool:
    """An integer, or a vector of them (SIMD integer moves of doubles), of whole bytes."""
    if isinstance(t, VectorType):
        return isinstance(t.element, IntType) and t.element.bits % 8 == 0
    return isinstance(t, IntType) and t.bits >= 16 and t.bits % 8 == 0


def _bits(t: Type) -> int:
    """The width of an integer or of a vector of integers."""
    return t.count * t.element.bits if isinstance(t, VectorType) else t.bits  # type: ignore[attr-defined]


def _from_segments(segments: list[Segment], moved: Type, layout: DataLayout,
                   overwrite: bool = False) -> Type | tuple[Piece, ...] | str | None:
    """The float/vector/pointer type an integer of type `moved` with these byte
    `segments` really holds, or the typed pieces of a mix; None for integers; a reason
    string when unknown or conflicting. With `overwrite` (inactive bits stored over
    memory with a shadow) bytes of unknown or conflicting type count as floats: what
    they held, if it was a derivative, is gone."""
    bits = _bits(moved)
    if overwrite:
        segments = [_overwritten(s) for s in segments]
    if len(segments) == 1 and segments[0].size * 8 == bits:
        whole = _whole(segments[0].type, bits, layout)
        if isinstance(moved, VectorType) and whole == PTR:
            return None if overwrite else "a vector of integers moves a pointer"
        return None if overwrite and whole == PTR else whole  # a constant address: stays an integer
    if isinstance(moved, VectorType):
        return _vector_segments(segments, bits)
    pieces: list[Piece] = []
    for seg in segments:
        match seg.type.kind:
            case Kind.FLOAT:
                elem = FloatType(seg.type.float_kind)  # type: ignore[arg-type]
                width = layout.size_of(elem)
                if seg.size % width or width not in (2, 4, 8):
                    return "its bytes split a floating-point value"
                pieces += [Piece(seg.offset + k, elem) for k in range(0, seg.size, width)]
            case Kind.POINTER:
                if seg.size != layout.size_of(PTR) or overwrite:
                    pieces.append(Piece(seg.offset, IntType(8 * seg.size)))
                else:
                    pieces.append(Piece(seg.offset, PTR))
            case Kind.INTEGER | Kind.ANYTHING:
                last = pieces[-1] if pieces else None
                if last is not None and isinstance(last.type, IntType) and last.offset + last.size == seg.offset:
                    pieces[-1] = Piece(last.offset, IntType(last.type.bits + 8 * seg.size))
                else:
                    pieces.append(Piece(seg.offset, IntType(8 * seg.size)))
            case Kind.CONFLICT:
                return "it is used as two different types"
            case _:
                return "nothing in the differentiated code says what its bytes are"
    if all(isinstance(p.type, IntType) for p in pieces):
        return None
    return tuple(pieces)


def _vector_segments(segments: list[Segment], bits: int) -> Type | str | None:
    """What a vector of integers made of several typed segments moves: floats of one
    type make a vector of them; integers stay; a mix is not split (unlike a scalar
    integer's pieces) but undecided."""
    kinds = {seg.type.kind for seg in segments}
    if kinds <= {Kind.INTEGER, Kind.ANYTHING}:
        return None
    floats = {seg.type.float_kind for seg in segments if seg.type.kind is Kind.FLOAT}
    if kinds == {Kind.FLOAT} and len(floats) == 1:
        elem = FloatType(floats.pop())  # type: ignore[arg-type]
        lane = {"float": 32, "double": 64}.get(elem.kind)
        if lane is not None and bits % lane == 0:
            return VectorType(bits // lane, elem)
    return "its bytes mix floating-point data with other types"


def _whole(t: BaseType, bits: int, layout: DataLayout) -> Type | str | None:
    match t.kind:
        case Kind.FLOAT:
            elem = FloatType(t.float_kind)  # type: ignore[arg-type]
            width = layout.size_of(elem) * 8
            if bits == width:
                return elem
            if bits % width == 0:
                return VectorType(bits // width, elem)
            return "its bytes split a floating-point value"
        case Kind.POINTER:
            return PTR if bits == layout.size_of(PTR) * 8 else None
        case Kind.INTEGER | Kind.ANYTHING:
            return None
        case Kind.CONFLICT:
            return "it is used as two different types"
    return "nothing in the differentiated code says what its bytes are"


def _overwritten(seg: Segment) -> Segment:
    """A segment of memory overwritten by inactive bits: unknown (or conflicting,
    or `Anything`: the stored zero itself says nothing) bytes may have held floats,
    and are treated as doubles (or floats) so their shadow is cleared."""
    if seg.type.kind not in (Kind.UNKNOWN, Kind.ANYTHING, Kind.CONFLICT):
        return seg
    if seg.size % 8 == 0:
        return Segment(seg.offset, seg.size, float_type("double"))
    if seg.size % 4 == 0:
        return Segment(seg.offset, seg.size, float_type("float"))
    return Segment(seg.offset, seg.size, INTEGER)


def _retype_load(load: Load, real: Type) -> None:
    b = IRBuilder()
    b.position_before(load)
    typed = b.load(real, load.ptr, (load.name or "v") + ".typed", align=load.align)
    _copy_metadata(load, typed)
    back = b.cast("ptrtoint" if real == PTR else "bitcast", typed, load.type, (load.name or "v") + ".bits")
    load.replace_all_uses_with(back)
    load.erase()
    for use in list(back.uses):  # where the bits become a float or pointer again: the loaded value
        user = use.user
        if isinstance(user, Cast) and user.opcode in ("inttoptr", "bitcast") and user.type == typed.type:
            user.replace_all_uses_with(typed)
            user.erase()


def _retype_store(store: Store, real: Type) -> None:
    value = store.value
    b = IRBuilder()
    b.position_before(store)
    match value:
        case Cast(opcode="bitcast" | "ptrtoint") if value.operand(0).type == real:
            typed = value.operand(0)
        case ConstantInt() if isinstance(real, FloatType):
            typed = constant_piece(value, Piece(0, real), b)
        case _:
            typed = b.cast("inttoptr" if real == PTR else "bitcast", value, real, "v.typed")
    new = b.store(typed, store.ptr, align=store.align)
    _copy_metadata(store, new)
    store.erase()


def _copy_metadata(old: Instruction, new: Instruction) -> None:
    """Keep the location; drop type-based alias tags (they named the integer type)."""
    new.metadata = {k: m for k, m in old.metadata.items() if not k.startswith("tbaa")}


def _may_carry_active_bits(v: Value, activity: Activity, arithmetic: bool = False) -> bool:
    """Whether integer `v` may hold the bits of active floating data or of a
    pointer into shadowed memory (with `arithmetic`, also after integer arithmetic)."""
    seen: set[int] = set()
    work = [v]
    while work:
        x = work.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        match x:
            case Load():
                if activity.has_shadow(x.ptr):
                    return True
            case Cast(opcode="bitcast"):
                if x.operand(0) in activity.varied:
                    return True
                work.append(x.operand(0))
            case Cast(opcode="ptrtoint"):
                if activity.has_shadow(x.operand(0)):
                    return True
            case Phi():
                work.extend(val for val, _ in x.incoming)
            case Select():
                work.extend((x.true_value, x.false_value))
            case Freeze() | ExtractElement():
                work.append(x.operand(0))  # a lane of a vector's bits (a pointer in a merged slot)
            case InsertElement() | ShuffleVector():
                work.extend(x.operands[:2])
            case Cast(opcode="zext" | "sext" | "trunc"):
                work.append(x.operand(0))
            case BinaryOp(opcode="or" | "and" | "xor" | "shl" | "lshr" | "ashr"):
                work.extend(x.operands)  # moves bits (a split load's rebuilt integer)
            case BinaryOp() if arithmetic:
                work.extend(x.operands)
    return False
