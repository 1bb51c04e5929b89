"""Globals in derivatives: which have shadows, and the shadows of constant addresses.

A global the differentiated code never writes is a constant: loads from it carry
no derivative. A global that holds active data needs a shadow global, named by
`!enzyme_shadow !{ptr @d_g}` on the global (IR inputs; `markers` attaches it for C's
`__enzyme_shadow_global`); the reverse pass then
accumulates into `@d_g` like into any shadow memory. A global registered inactive
(`!enzyme_inactive`, which `markers` attaches for C's `__enzyme_inactive_global`)
may be written with active values: nothing flows through it. A global of plain data the
differentiated code writes gets a shadow of enzc's own first (`enzc.ad.auto_shadows`);
any other global written with an active value is a compile-time error
(`reverse.check_store_forward`).
Where a pointer into a registered inactive or a read-only global stands for
shadowed memory (selected with an active pointer, stored into an object a
differentiated callee reads), its shadow is a zeroed global of enzc's own
(`zero_sink`): derivatives of constants go nowhere. A global, not a stack slot: the
shadow pointer may be stored into memory that outlives the derived function (an
augmented forward pass). Like the shadows `auto_shadows` makes, it is cleared
before each derivative call (`shadows_to_clear`), so tangents read there are 0.

Constant expressions over a shadowed global (`getelementptr (i8, ptr @g, i64 8)`)
are shadowed too; their shadow is the same expression over the shadow global.
"""

from __future__ import annotations

import re

from enzc.ir.metadata import Metadata, MDRef, MDTuple, MDValue
from enzc.ir.module import Function, GlobalVariable, Module
from enzc.ir.values import ConstantExpr, GlobalValue, Value, iter_constant_operands, zeroinitializer

SHADOW_KIND = "enzyme_shadow"
INACTIVE_KIND = "enzyme_inactive"
AUTO_SHADOW_KIND = "enzc_auto_shadow"
"""Marks a shadow global enzc made (`!enzc_auto_shadow !{}`), so that a later AD run
over the same module (the driver's cache, a second link) knows it is to be cleared."""


def resolve_metadata(module: Module, md: Metadata | None) -> Metadata | None:
    """Follow `!N` references to the node they name."""
    for _ in range(8):
        if isinstance(md, MDRef):
            md = module.metadata.get(md.id)
        else:
            return md
    return None


def metadata_target(module: Module, md: Metadata | None) -> Value | None:
    """The value a `!{ptr @x}` attachment (`!enzyme_shadow`, `!enzyme_gradient`, ...) names."""
    node = resolve_metadata(module, md)
    if isinstance(node, MDTuple) and node.operands:
        first = resolve_metadata(module, node.operands[0])
        if isinstance(first, MDValue):
            return first.value
    return None


def shadow_of_global(module: Module, gv: GlobalValue) -> GlobalValue | None:
    """The shadow `!enzyme_shadow` names for `gv`, if any."""
    if not isinstance(gv, GlobalVariable):
        return None
    target = metadata_target(module, gv.metadata.get(SHADOW_KIND))
    return target if isinstance(target, GlobalValue) else None


def is_inactive_global(gv: Value) -> bool:
    """Registered inactive: active values may be stored into it without a shadow."""
    return isinstance(gv, GlobalVariable) and INACTIVE_KIND in gv.metadata


def has_zero_shadow(gv: Value) -> bool:
    """A global whose memory carries no derivative although a pointer into it may
    stand where shadowed memory does (`select c, ptr @table, ptr %x`, a struct field
    a differentiated callee reads): registered inactive, or read-only (`constant`:
    C's `const` tables, which the program cannot write). Its shadow is zeroed
    scratch of its size (`synth.gradient_utils`)."""
    return isinstance(gv, GlobalVariable) and (is_inactive_global(gv) or gv.is_constant) \
        and SHADOW_KIND not in gv.metadata


def base_global(c: Value) -> GlobalValue | None:
    """The global a constant address is computed from (itself, or through casts/GEPs)."""
    for _ in range(16):
        match c:
            case GlobalValue():
                return c
            case ConstantExpr(opcode="getelementptr" | "bitcast" | "addrspacecast", operands=[first, *_]):
                c = first
            case _:
                return None
    return None


def shadowed_constants(module: Module, fn: Function) -> list[Value]:
    """Globals with shadows used by `fn`, and the constant addresses over them."""
    out: list[Value] = []
    seen: set[int] = set()
    for inst in fn.instructions():
        for op in inst.operands:
            _collect(module, op, out, seen)
    return out


def _collect(module: Module, c: Value, out: list[Value], seen: set[int]) -> None:
    if id(c) in seen or isinstance(c, Function):
        return
    seen.add(id(c))
    match c:
        case GlobalVariable():
            if shadow_of_global(module, c) is not None:
                out.append(c)
        case ConstantExpr():
            base = base_global(c)
            if base is not None and shadow_of_global(module, base) is not None:
                out.append(c)
            for sub in iter_constant_operands(c):
                _collect(module, sub, out, seen)


def shadow_constant(module: Module, c: Value) -> Value:
    """The shadow of a shadowed global or constant address over one."""
    if isinstance(c, GlobalVariable):
        sh = shadow_of_global(module, c)
        assert sh is not None
        return sh
    assert isinstance(c, ConstantExpr)
    base = base_global(c)
    assert base is not None
    sh = shadow_of_global(module, base)
    assert sh is not None
    spelling = re.sub(re.escape(base.ref()) + r"(?![-\w$.])", lambda _: sh.ref(), c.spelling)
    operands = [shadow_constant(module, o) if o is base or (isinstance(o, ConstantExpr) and base_global(o) is base)
                else o for o in c.operands]
    return ConstantExpr(c.type, c.opcode, operands, spelling, c.source_type)


def zero_sink(module: Module, g: GlobalVariable) -> GlobalVariable:
    """The zeroed global standing for the shadow of `g`, a global without
    derivatives (`has_zero_shadow`), made on first use."""
    name = f"{g.name}.enzc_zero_shadow"
    sink = module.globals.get(name)
    if not isinstance(sink, GlobalVariable):
        sink = add_enzc_shadow(module, name, g)
    return sink


def add_enzc_shadow(module: Module, name: str, g: GlobalVariable) -> GlobalVariable:
    """A zero-initialised internal global shaped like `g` (thread-local if `g` is),
    marked as enzc's (cleared before each derivative call)."""
    shadow = module.add_global(name, g.value_type, zeroinitializer(g.value_type))
    shadow.linkage.words = ["internal", *(w for w in g.linkage.words if w.startswith("thread_local"))]
    shadow.suffix = [item for item in g.suffix if item.startswith("align")]  # shadow accesses copy the primal's
    shadow.metadata[AUTO_SHADOW_KIND] = MDRef(module.add_metadata(MDTuple([])))
    return shadow


def shadows_to_clear(module: Module) -> list[GlobalVariable]:
    """The shadow globals enzc made, in the module's order."""
    return [g for g in module.globals.values() if isinstance(g, GlobalVariable) and AUTO_SHADOW_KIND in g.metadata]
