"""Shadows for globals the differentiated code writes floats into, made by enzc.

A global written with an active value needs a shadow global to hold its derivative
(`!enzyme_shadow`, C's `__enzyme_shadow_global`). Newer Enzyme creates one itself
when the user registered none; so does enzc: before activity analysis, every
writable global of plain data (a `double`, a `char` buffer, arrays and structs of
numbers: no pointers) that code reachable from an entry point stores computed floats into (or copies
memory into), or whose address it stores into memory (`m->params = &defaults`: the
shadow of `m` then points at the global's shadow), gets a zero-initialised internal
shadow. The derivative with respect
to such a global's value on entry is not something the user asked for, so the
entry-point lowering (`callsite`) clears these shadows before each derivative call
starts (forward, combined and augmented-forward entry points; not before
`__enzyme_reverse`, which continues an augmented call): what one call leaves in a
shadow never leaks into the next call's gradient.

Globals holding pointers still need a registered shadow (or the inactive mark):
enzc cannot know what a shadow pointer stored there should point to.
`--enzc-no-auto-shadow` turns this off; a write of an active value into a global
without a shadow is then a compile-time error, as before.
"""

from __future__ import annotations

from collections.abc import Callable

from enzc.ir.instructions import CallBase, Instruction, Store
from enzc.ir.metadata import MDRef, MDTuple, MDValue
from enzc.ir.module import Function, GlobalVariable, Module
from enzc.ir.types import ArrayType, FloatType, IntType, NamedStructType, PointerType, StructType, Type, VectorType
from enzc.ir.values import Constant

from enzc.ad.analysis.globals_shadow import SHADOW_KIND, add_enzc_shadow, is_inactive_global, shadow_of_global
from enzc.ad.analysis.memory_facts import underlying_object, underlying_objects
from enzc.ad.callsite import function_of, is_entry_point

_COPIES = ("llvm.memcpy", "llvm.memmove")


def create_auto_shadows(module: Module, callers: list[Function]) -> None:
    """Give every global of plain data that code differentiated from the entry calls in
    `callers` writes floats into a zeroed shadow (unless it has one or is registered
    inactive)."""
    for fn in _reachable_from_entry_points(callers):
        for inst in fn.instructions():
            for target in (_written_global(inst), *_stored_addresses(inst)):
                if target is not None and _needs_shadow(module, target):
                    _add_shadow(module, target)


def _reachable_from_entry_points(callers: list[Function]) -> list[Function]:
    """The functions handed to entry points and every function they may call or take the address of."""
    roots = []
    for fn in callers:
        for inst in fn.instructions():
            if isinstance(inst, CallBase) and is_entry_point(inst.called_function) and inst.args:
                target = function_of(inst.args[0]) or (function_of(inst.args[1]) if len(inst.args) > 1 else None)
                if target is not None:
                    roots.append(target)
    seen: dict[str, Function] = {}
    work = roots
    while work:
        fn = work.pop()
        if fn.name in seen or fn.is_declaration:
            continue
        seen[fn.name or ""] = fn
        for inst in fn.instructions():
            work += [op for op in inst.operands if isinstance(op, Function)]
    return list(seen.values())


def _written_global(inst: Instruction) -> GlobalVariable | None:
    """The global a store of computed floats or a memory copy writes into, if any
    (constants written there carry no derivative: no shadow for a global only reset)."""
    if isinstance(inst, Store):
        if not _only_floats(inst.value.type) or isinstance(inst.value, Constant):
            return None
        dest = inst.ptr
    elif isinstance(inst, CallBase) and (inst.called_function is not None
                                         and (inst.called_function.name or "").startswith(_COPIES)):
        dest = inst.args[0]
    else:
        return None
    target = underlying_object(dest)
    return target if isinstance(target, GlobalVariable) else None


def _stored_addresses(inst: Instruction) -> list[GlobalVariable]:
    """The globals whose address `inst` stores into memory (`m->params = &defaults`):
    where that memory is shadowed, its shadow must point at the global's shadow, which
    receives the derivatives of what is read through it (a `const` one has a zeroed
    sink instead, `globals_shadow.zero_sink`)."""
    if not isinstance(inst, Store) or not isinstance(inst.value.type, PointerType):
        return []
    return [g for g in underlying_objects(inst.value) if isinstance(g, GlobalVariable)]


def _needs_shadow(module: Module, g: GlobalVariable) -> bool:
    return (not g.is_constant and _plain_data(g.value_type) and shadow_of_global(module, g) is None
            and not is_inactive_global(g))


def _only_floats(ty: Type) -> bool:
    """Whether every scalar in `ty` is floating point (a double, an array/struct of them)."""
    return _scalars_are(ty, lambda t: isinstance(t, FloatType))


def _plain_data(ty: Type) -> bool:
    """Whether `ty` holds no pointers: floats, integers, bytes (a `char` buffer doubles
    are stored into), arrays and structs of them."""
    return _scalars_are(ty, lambda t: isinstance(t, (FloatType, IntType)))


def _scalars_are(ty: Type, ok: Callable[[Type], bool]) -> bool:
    match ty:
        case ArrayType(element=e) | VectorType(element=e):
            return _scalars_are(e, ok)
        case StructType(elements=els) | NamedStructType(elements=els) if els:
            return all(_scalars_are(e, ok) for e in els)
    return ok(ty)


def _add_shadow(module: Module, g: GlobalVariable) -> None:
    shadow = add_enzc_shadow(module, f"{g.name}.enzc_shadow", g)
    g.metadata[SHADOW_KIND] = MDRef(module.add_metadata(MDTuple([MDValue(shadow)])))
