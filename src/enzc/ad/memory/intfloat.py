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
pointer). Bytes that hold integers stay as they are. A
floating or unknown-typed integer value that reaches shadowed memory any other
way (integer arithmetic, phis of bits) is a compile-time error naming it.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.datalayout import DataLayout
from enzc.ir.instructions import BinaryOp, CallBase, Cast, Freeze, InsertElement, InsertValue, Instruction, Load, Phi
from enzc.ir.instructions import Ret, Select, Store
from enzc.ir.module import Function, Module
from enzc.ir.types import PTR, FloatType, IntType, PointerType, Type, VectorType
from enzc.ir.values import Use, Value

from enzc.ad.analysis.activity import Activity
from enzc.ad.analysis.uses import reaches
from enzc.ad.typeanalysis.analysis import TypeAnalysis
from enzc.ad.typeanalysis.offsets import TypeSeeds, alloca_offset, declared_field
from enzc.ad.typeanalysis.results import TypeResults
from enzc.ad.typeanalysis.tbaa import INTEGER_TYPE_NAMES, TBAAReader
from enzc.ad.typeanalysis.typetree import BaseType, Kind

_HINT = ("copy the values as double/float (not through integer types or unions) in the "
         "differentiated code")


def retype_integer_moves(module: Module, layout: DataLayout, fn: Function, activity: Activity,
                         reanalyze, types: TypeAnalysis) -> Activity:
    """Rewrite integer moves of floats/pointers touching shadowed memory in `fn` (the
    private copy being differentiated); returns the activity of the result
    (`reanalyze()` recomputes it after a rewrite, which may shadow more memory).
    `types` is the module's type analysis. A store whose bytes `fn` alone cannot
    type is asked again in the context all of `fn`'s call sites agree on."""
    from enzc.ad.diagnostics import ad_error

    settled: set[int] = set()
    """Moves found to hold integers (they stay)."""
    while True:
        candidates = [i for i in fn.instructions() if id(i) not in settled and _touches_shadow(i, activity)]
        if not candidates:
            _check_integer_pointers(module, fn, activity)
            _check_float_bits(module, fn, activity)
            return activity
        results, tbaa = types.analyze(fn), TBAAReader(module)
        reals = [_moved_type(results, tbaa, inst, layout)
                 for inst in candidates]  # all before rewriting: the results describe these values
        if any(_undecided(inst, real, activity) for inst, real in zip(candidates, reals)):
            reals = _by_call_sites(types, tbaa, fn, candidates, reals, layout)
        changed = False
        for inst, real in zip(candidates, reals):
            if _undecided(inst, real, activity):
                raise ad_error(module, inst, fn.name or "?",
                               f"cannot tell whether the {inst.value.type} stored here holds floating-point "
                               f"data: {real}", _HINT)
            if real is None or isinstance(real, str):
                settled.add(id(inst))
            elif isinstance(inst, Load):
                _retype_load(inst, real)
                changed = True
            else:
                _retype_store(inst, real)  # type: ignore[arg-type]
                changed = True
        if not changed:
            _check_integer_pointers(module, fn, activity)
            _check_float_bits(module, fn, activity)
            return activity
        types.forget(fn)  # its body changed
        activity = reanalyze()


def _undecided(inst: Instruction, real: Type | str | None, activity: Activity) -> bool:
    """A store whose bytes have no known type while they may carry active data."""
    return isinstance(real, str) and isinstance(inst, Store) and _may_carry_active_bits(inst.value, activity)


def _by_call_sites(types: TypeAnalysis, tbaa: TBAAReader, fn: Function, candidates: list[Instruction],
                   reals: list[Type | str | None], layout: DataLayout) -> list[Type | str | None]:
    """The moves without a known type typed from what every call site of `fn` says of
    its arguments (a helper that copies whatever its caller hands it, typed there)."""
    by_callers = types.call_site_results(fn)
    if by_callers is None:
        return reals
    return [_moved_type(by_callers, tbaa, inst, layout) if isinstance(real, str) else real
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


def _check_float_bits(module: Module, fn: Function, activity: Activity) -> None:
    """The bits of an active float reinterpreted as an integer (`bitcast double to
    i64`) that carry on towards the result (used on the way to it, passed to a
    call, returned): no adjoint can follow them, so stop instead of a zero
    derivative. Moves into memory were given their float type above."""
    from enzc.ad.diagnostics import ad_error

    for inst in fn.instructions():
        if (isinstance(inst, Cast) and inst.opcode == "bitcast" and inst.operand(0) in activity.varied
                and not isinstance(inst.type.scalar, (FloatType, PointerType))
                and (inst in activity.useful or _bits_leave(inst))):
            raise ad_error(module, inst, fn.name or "?",
                           f"the bits of an active {inst.operand(0).type} are reinterpreted as {inst.type} "
                           "and carried on (to a call, the result, or integer arithmetic on the way to "
                           "them): the derivative cannot follow them", _HINT)


def _bits_leave(bits: Instruction) -> bool:
    """Whether integer `bits` reach (through integer dataflow) a call that may use
    them or a `ret`."""
    from enzc.ad.analysis.calls import CallKind, classify

    def hit(use: Use) -> bool:
        user = use.user
        if isinstance(user, Ret):
            return True
        return (isinstance(user, CallBase) and use.index < len(user.args)
                and classify(user, lambda _: False) is not CallKind.INACTIVE)

    def passes_on(user: Instruction) -> bool:
        return isinstance(user, (BinaryOp, Cast, Phi, Select, Freeze, InsertValue, InsertElement)) \
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


def _moved_type(types: TypeResults, tbaa: TBAAReader, inst: Instruction, layout: DataLayout) -> Type | str | None:
    """What an integer move really moves (see `_real_type`): an integer when its own
    `!tbaa` tag or the declared type of the local object it touches says so (only
    integers are taken from there: a declared pointer may point at chars), else
    what type analysis says."""
    if _tagged_integer(tbaa, inst) or isinstance(_declared(inst, layout), IntType):
        return None
    return _real_type(types, inst if isinstance(inst, Load) else inst.value, layout)  # type: ignore[attr-defined]


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


def _tagged_integer(tbaa: TBAAReader, inst: Instruction) -> bool:
    """The access's own `!tbaa` tag names an integer type (`long`, `int`, ...): by
    C's aliasing rules the bytes it moves are an integer, whatever type analysis
    joined into them (a red-black tree's header node and its count share offsets
    with the nodes' keys and links)."""
    tag = inst.metadata.get("tbaa")
    if tag is None:
        return False
    ops = tbaa.operands(tag)
    if len(ops) < 3:
        return False
    access = tbaa.operands(ops[1])
    return bool(access) and tbaa.string(access[0]) in INTEGER_TYPE_NAMES


def _wide_int(t: Type) -> bool:
    return isinstance(t, IntType) and t.bits >= 16 and t.bits % 8 == 0


def _real_type(types: TypeResults, value: Value, layout: DataLayout) -> Type | str | None:
    """The float/vector/pointer type an integer value really holds; None for
    integers; a reason string when unknown or conflicting."""
    t: BaseType = types.type_of(value)
    bits = value.type.bits  # type: ignore[attr-defined]
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


def _retype_load(load: Load, real: Type) -> None:
    b = IRBuilder()
    b.position_before(load)
    typed = b.load(real, load.ptr, (load.name or "v") + ".typed", align=load.align)
    _copy_metadata(load, typed)
    back = b.cast("ptrtoint" if real == PTR else "bitcast", typed, load.type, (load.name or "v") + ".bits")
    load.replace_all_uses_with(back)
    load.erase()
    if real == PTR:  # the pointer itself where the bits become a pointer again: its shadow follows
        for use in list(back.uses):
            user = use.user
            if isinstance(user, Cast) and user.opcode == "inttoptr" and user.type == typed.type:
                user.replace_all_uses_with(typed)
                user.erase()


def _retype_store(store: Store, real: Type) -> None:
    value = store.value
    b = IRBuilder()
    b.position_before(store)
    match value:
        case Cast(opcode="bitcast" | "ptrtoint") if value.operand(0).type == real:
            typed = value.operand(0)
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
            case Freeze():
                work.append(x.operand(0))
            case BinaryOp() if arithmetic:
                work.extend(x.operands)
    return False
