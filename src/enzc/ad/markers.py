"""Registrations written in C: `__enzyme_*` globals that annotate functions and globals.

    void *__enzyme_register_gradient_f[3] = {(void *)f, (void *)aug_f, (void *)rev_f};
    void *__enzyme_register_derivative_f[2] = {(void *)f, (void *)fwd_f};
    void *__enzyme_inactivefn[] = {(void *)log_value, ...};
    void *__enzyme_inactive_global_x = (void *)&last_input;
    void *__enzyme_function_like[2] = {(void *)my_log1p, (void *)"log1p"};
    void *__enzyme_shadow_global_g[2] = {(void *)&g, (void *)&d_g};
    void *__enzyme_allocation_like[4] = {(void *)my_alloc, (void *)1, (void *)"2,-1", (void *)my_free};

`apply_registrations` turns them into the IR annotations the engine reads, the
ones IR inputs may carry directly (as Enzyme's own preprocessing does):

    custom gradient   !enzyme_augment !{ptr @aug_f}, !enzyme_gradient !{ptr @rev_f} on @f
    forward custom    !enzyme_derivative !{ptr @fwd_f} on @f
    inactive function "enzyme_inactive" function attribute
    inactive global   !enzyme_inactive !{} on the global
    function like     "enzyme_math"="log1p" function attribute (the rule table's entry)
    global's shadow   !enzyme_shadow !{ptr @d_g} on @g
    allocator         "enzyme_allocator"="1" function attribute (the size argument)

Enzyme's clang-plugin attributes `__attribute__((enzyme_inactive))` and
`__attribute__((enzyme_function_like("log1p")))` reach the IR as clang annotations
(the driver defines them as `annotate(...)`, see `frontend/enzyme_attributes.py`):
entries of `@llvm.global.annotations` naming "enzyme_inactive" (a function or a
global) or "enzyme_function_like" with the function's name as argument, turned
into the same annotations.

A registration is recognized by its name containing one of the marks, so C++
mangling (`_ZL28__enzyme_register_gradient_f` for a `static` one, namespaces) and
function-local statics (`g.__enzyme_inactivefn`) work as well. The registration
globals stay in the module: they are defined data, so the program links, and they
keep the registered functions alive until AD (the driver adds discardable ones,
e.g. `static`, to `@llvm.compiler.used`, or O2* would delete them unread).
Keeping `f` from being inlined before AD is the driver's job
(`functions_to_keep` lists what it must mark `noinline`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from enzc.ir.metadata import MDTuple, MDValue, MDRef
from enzc.ir.module import Alias, Function, GlobalVariable, Module
from enzc.ir.values import ConstantAggregate, ConstantExpr, ConstantInt, ConstantSimple, ConstantString, GlobalValue, Value

from enzc.ad.analysis.allocations import ALLOCATOR_ATTR
from enzc.ad.analysis.annotations import AUGMENT_KIND, DERIVATIVE_KIND, GRADIENT_KIND, INACTIVE_ATTR, MATH_ATTR
from enzc.ad.analysis.globals_shadow import INACTIVE_KIND, SHADOW_KIND

REGISTER_GRADIENT = "__enzyme_register_gradient"
REGISTER_DERIVATIVE = "__enzyme_register_derivative"
INACTIVE_FN = "__enzyme_inactivefn"
INACTIVE_GLOBAL = "__enzyme_inactive_global"
FUNCTION_LIKE = "__enzyme_function_like"
SHADOW_GLOBAL = "__enzyme_shadow_global"
ALLOCATION_LIKE = "__enzyme_allocation_like"
REGISTRATION_MARKS = (REGISTER_GRADIENT, REGISTER_DERIVATIVE, INACTIVE_FN, INACTIVE_GLOBAL, FUNCTION_LIKE, SHADOW_GLOBAL,
                      ALLOCATION_LIKE)

ANNOTATIONS = "llvm.global.annotations"
INACTIVE_ANNOTATION = "enzyme_inactive"
FUNCTION_LIKE_ANNOTATION = "enzyme_function_like"
ANNOTATION_MARKS = (INACTIVE_ANNOTATION, FUNCTION_LIKE_ANNOTATION)
"""Strings in a module whose clang annotations may carry Enzyme attributes."""


def apply_registrations(module: Module) -> None:
    """Annotate the functions and globals the module's registration globals name."""
    from enzc.ad.diagnostics import ad_error

    annotations = module.globals.get(ANNOTATIONS)
    if isinstance(annotations, GlobalVariable) and annotations.initializer is not None:
        _apply_annotations(module, annotations.initializer)
    for gv in list(module.globals.values()):
        name = gv.name or ""
        kind = registration_kind(name)
        if kind is None or gv.initializer is None:
            continue
        items = _items(gv.initializer)
        try:
            if kind == REGISTER_GRADIENT:
                _register_gradient(module, name, items)
            elif kind == REGISTER_DERIVATIVE:
                _register_derivative(module, items)
            elif kind == INACTIVE_FN:
                for f in items:
                    _add_attr(_function(f, "a function"), INACTIVE_ATTR)
            elif kind == INACTIVE_GLOBAL:
                for g in items:
                    _mark_inactive_global(module, _global(g))
            elif kind == SHADOW_GLOBAL:
                _shadow_global(module, items)
            elif kind == ALLOCATION_LIKE:
                _allocation_like(items)
            else:
                _function_like(name, items)
        except ValueError as err:
            raise ad_error(module, None, name, f"malformed registration '@{name}': {err}",
                           _HINTS[kind]) from None


def _apply_annotations(module: Module, table: Value) -> None:
    """`{ptr target, ptr "enzyme_...", ptr file, i32 line, ptr args}` entries."""
    from enzc.ad.diagnostics import ad_error

    for entry in _items(table):
        fields = entry.elements if isinstance(entry, ConstantAggregate) else []
        if len(fields) < 2:
            continue
        target, what = _strip(fields[0]), _c_string(_strip(fields[1]))
        if what == INACTIVE_ANNOTATION and isinstance(target, Function):
            _add_attr(target, INACTIVE_ATTR)
        elif what == INACTIVE_ANNOTATION and isinstance(target, GlobalVariable):
            _mark_inactive_global(module, target)
        elif what == FUNCTION_LIKE_ANNOTATION and isinstance(target, Function):
            like = _annotation_string_argument(fields[4] if len(fields) > 4 else None)
            if like is None:
                raise ad_error(module, None, target.name or "?",
                               "enzyme_function_like needs the name of a known function",
                               'write __attribute__((enzyme_function_like("log1p")))')
            _add_attr(target, f'{MATH_ATTR}="{like}"')


def _annotation_string_argument(args: Value | None) -> str | None:
    """The first argument of `annotate("...", "name")`: a private constant struct
    holding a pointer to the string."""
    holder = _strip(args) if args is not None else None
    if not isinstance(holder, GlobalVariable) or not isinstance(holder.initializer, ConstantAggregate):
        return None
    first = holder.initializer.elements[:1]
    return _c_string(_strip(first[0])) if first else None


def annotated_functions(annotations_text: str, string_of: Callable[[str], str | None]) -> list[str]:
    """Functions an `@llvm.global.annotations` definition (IR text) marks with an
    Enzyme attribute; `string_of(name)` is the text of the string global `@name`."""
    out = []
    for target, label in _ANNOTATION_ENTRY.findall(annotations_text):
        if string_of(label.strip('"')) in ANNOTATION_MARKS:
            out.append(target.strip('"'))
    return out


_ANNOTATION_ENTRY = re.compile(r'\{\s*ptr\s+@("(?:[^"\\]|\\.)*"|[-\w$.]+)\s*,\s*ptr\s+@("(?:[^"\\]|\\.)*"|[-\w$.]+)')


def registration_kind(name: str) -> str | None:
    """The registration mark in a global's (possibly mangled) name, if any."""
    if "__enzyme_" not in name:
        return None
    return next((mark for mark in REGISTRATION_MARKS if mark in name), None)


_FUNCTION_REF = re.compile(r'\bptr\s+@("(?:[^"\\]|\\.)*"|[-\w$.]+)')


def functions_to_keep(definitions: Iterable[tuple[str, str]]) -> list[str]:
    """Functions that must still be calls when AD runs, from `(name, IR text)` of
    the module's globals: the function of each custom gradient and function-like
    registration and every inactive function (inlined, their bodies would be
    differentiated). The driver marks them `noinline` before optimizing."""
    out: list[str] = []
    for name, text in definitions:
        kind = registration_kind(name)
        if kind is None or kind in (INACTIVE_GLOBAL, SHADOW_GLOBAL):
            continue
        _, _, init = text.partition("=")
        refs = [r.strip('"') for r in _FUNCTION_REF.findall(init)]
        out += refs if kind == INACTIVE_FN else refs[:1]
    return out


_HINTS = {
    REGISTER_GRADIENT: "write void *__enzyme_register_gradient_NAME[3] = {(void *)f, (void *)aug_f, (void *)rev_f};",
    REGISTER_DERIVATIVE: "write void *__enzyme_register_derivative_NAME[2] = {(void *)f, (void *)fwd_f};",
    INACTIVE_FN: "write void *__enzyme_inactivefn[] = {(void *)f, ...};",
    INACTIVE_GLOBAL: "write void *__enzyme_inactive_global_NAME = (void *)&the_global;",
    FUNCTION_LIKE: 'write void *__enzyme_function_like[2] = {(void *)f, (void *)"log1p"};',
    SHADOW_GLOBAL: "write void *__enzyme_shadow_global_NAME[2] = {(void *)&g, (void *)&d_g};",
    ALLOCATION_LIKE: 'write void *__enzyme_allocation_like[4] = {(void *)alloc, (void *)SIZE_ARG, (void *)"FREE_ARGS", '
                     "(void *)free_fn}; (SIZE_ARG: the index of alloc's byte count)",
}


def _items(init: Value) -> list[Value]:
    if isinstance(init, ConstantAggregate):
        return list(init.elements)
    return [init]


def _strip(v: Value) -> Value:
    """Through casts and aliases to the function or global meant."""
    for _ in range(8):
        match v:
            case Alias(target=t):
                v = t
            case ConstantExpr(opcode="bitcast" | "addrspacecast", operands=[inner, *_]):
                v = inner
            case _:
                return v
    return v


def _function(v: Value, what: str) -> Function:
    f = _strip(v)
    if not isinstance(f, Function):
        raise ValueError(f"expected {what}, found {_describe(v)}")
    return f


def _global(v: Value) -> GlobalVariable:
    g = _strip(v)
    if not isinstance(g, GlobalVariable):
        raise ValueError(f"expected the address of a global variable, found {_describe(v)}")
    return g


def _describe(v: Value) -> str:
    try:
        return v.ref()
    except ValueError:
        return f"a value of type {v.type}"


def _add_attr(fn: Function, attr: str) -> None:
    if attr not in fn.fn_attrs:
        fn.fn_attrs = (*fn.fn_attrs, attr)


def _node(module: Module, values: list[GlobalValue]) -> MDRef:
    return MDRef(module.add_metadata(MDTuple([MDValue(v) for v in values])))


def _register_gradient(module: Module, name: str, items: list[Value]) -> None:
    if len(items) != 3:
        raise ValueError(f"expected 3 functions {{f, augmented f, reverse f}}, found {len(items)} entries")
    f = _function(items[0], "the function as first entry")
    aug = _function(items[1], "the augmented forward function as second entry")
    rev = _function(items[2], "the reverse function as third entry")
    f.metadata[AUGMENT_KIND] = _node(module, [aug])
    f.metadata[GRADIENT_KIND] = _node(module, [rev])


def _register_derivative(module: Module, items: list[Value]) -> None:
    if len(items) != 2:
        raise ValueError(f"expected 2 functions {{f, forward derivative of f}}, found {len(items)} entries")
    f = _function(items[0], "the function as first entry")
    fwd = _function(items[1], "the forward derivative as second entry")
    f.metadata[DERIVATIVE_KIND] = _node(module, [fwd])


def _mark_inactive_global(module: Module, g: GlobalVariable) -> None:
    if INACTIVE_KIND not in g.metadata:
        g.metadata[INACTIVE_KIND] = MDRef(module.add_metadata(MDTuple([])))


def _shadow_global(module: Module, items: list[Value]) -> None:
    """C's spelling of `!enzyme_shadow`: `d_g` (same type, the user zeroes it and reads
    the derivative with respect to `g`'s value on entry from it) is `g`'s shadow."""
    if len(items) != 2:
        raise ValueError(f"expected {{&global, &its shadow}}, found {len(items)} entries")
    g, shadow = _global(items[0]), _global(items[1])
    if g is shadow or g.value_type != shadow.value_type:
        raise ValueError(f"the shadow of @{g.name} must be another global of the same type ({g.value_type})")
    g.metadata[SHADOW_KIND] = _node(module, [shadow])


def _allocation_like(items: list[Value]) -> None:
    """`{alloc, size index, "dealloc args", dealloc}`: calls of `alloc` are heap
    allocations of that argument's byte count (their bodies are not differentiated;
    the derivative makes each block's shadow itself, so the deallocator, which
    Enzyme calls on its shadows, is only checked)."""
    if len(items) != 4:
        raise ValueError(f"expected {{allocator, size index, \"deallocation arguments\", deallocator}}, "
                         f"found {len(items)} entries")
    alloc = _function(items[0], "the allocation function as first entry")
    index = _constant_index(items[1])
    if index is None or index >= len(alloc.function_type.params):
        raise ValueError(f"the second entry must be the index of @{alloc.name}'s size argument "
                         f"(0 to {len(alloc.function_type.params) - 1})")
    if _c_string(_strip(items[2])) is None:
        raise ValueError('the third entry must be a string literal of deallocation arguments ("2,-1")')
    _function(items[3], "the deallocation function as fourth entry")
    _add_attr(alloc, f'{ALLOCATOR_ATTR}="{index}"')


def _constant_index(v: Value) -> int | None:
    """An integer cast to a pointer: `(void *)1` (`inttoptr (i64 1 to ptr)`; 0 is `null`)."""
    match _strip(v):
        case ConstantExpr(opcode="inttoptr", operands=[ConstantInt() as k, *_]):
            return k.value
        case ConstantSimple(keyword="null" | "zeroinitializer"):
            return 0
    return None


def _function_like(name: str, items: list[Value]) -> None:
    if len(items) != 2:
        raise ValueError(f"expected {{function, \"name\"}}, found {len(items)} entries")
    f = _function(items[0], "a function as first entry")
    like = _c_string(_strip(items[1]))
    if like is None:
        raise ValueError("the second entry must be a string literal naming a known function")
    _add_attr(f, f'{MATH_ATTR}="{like}"')


def _c_string(v: Value) -> str | None:
    """The text of a string literal global (`@.str = ... c"log1p\\00"`)."""
    if isinstance(v, GlobalVariable) and isinstance(v.initializer, ConstantString):
        return v.initializer.data.split(b"\0", 1)[0].decode("utf-8", "replace")
    return None
