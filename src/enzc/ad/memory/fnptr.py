"""Indirect calls: the shadow of a function pointer and calls through it.

The shadow of a function pointer `fp` is a pointer to a constant global pair
`{ptr @augmented_f, ptr @reverse_f}` of the function `f` it points to. enzc
differentiates whole programs (every translation unit is merged before AD), so
the shadow is found by looking `fp` up among the module's *candidate* targets:
defined functions of the call's type whose address is taken somewhere (any
reference to `@f` that is not a direct call); an address-taken declaration of
the call's type (a library function without bitcode) is a compile-time error,
since no derivative could be made for it. At an active indirect call the
forward pass computes the pair from `fp` (a chain of compares and selects),
calls the augmented function through it, and keeps the pair as a forward value;
the reverse pass calls the reverse function through the looked-up pair. Forward
mode picks the forward derivative of the target the same way (`pick_derivative`). No
shadow memory for function pointers is needed: tables of function pointers in
constant globals, structs of function pointers and pointers passed as `const`
arguments all work alike.

Every candidate is derived for the call site's own signature (which arguments
carry shadows or adjoints, whether the result is active), so all pairs reached
through one call share one type. A pointer that is none of the candidates
(one the merged module cannot see, e.g. from a shared library's callback) ends
the program with a message instead of silently producing a zero derivative.
"""

from __future__ import annotations

import re
import weakref
from typing import Protocol

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.instructions import CallBase
from enzc.ir.libc import declare
from enzc.ir.module import Function, GlobalVariable, Module
from enzc.ir.printer import print_function
from enzc.ir.types import I32, I64, PTR, ArrayType, FunctionType, IntType, StructType
from enzc.ir.values import ConstantAggregate, ConstantInt, Value

PAIR = StructType((PTR, PTR))
"""`{augmented, reverse}`: the shadow of a function."""


class DerivedPair(Protocol):
    """A function's augmented forward and reverse (`synth.split_mode.SplitDerivative`)."""

    augmented: Function
    reverse: Function

_DERIVED_PREFIXES = ("diffe_", "split_", "augmented_", "reverse_", "__enzc_")

_address_taken: dict[int, tuple[weakref.ref, set[str]]] = {}
"""Per module (checked by a weak reference, ids are reused): the names found."""


def address_taken(module: Module) -> set[str]:
    """Names of functions referenced other than as a direct callee (computed once)."""
    got = _address_taken.get(id(module))
    if got is not None and got[0]() is module:
        return got[1]
    texts: list[str] = []
    for gv in module.globals.values():
        if gv.initializer is not None:
            texts.append(gv.initializer.ref())
    for a in module.aliases.values():
        texts.append(a.target.ref())
    for fn in module.functions.values():
        name = fn.name or ""
        if fn.is_declaration or name.startswith(_DERIVED_PREFIXES):
            continue
        texts.append(fn.source_text if not fn.is_materialized and fn.source_text else _body(fn))
    names = set(module.functions)
    found: set[str] = set()
    for m in _REFERENCE.finditer("\n".join(texts)):
        ref = m.group(1) or m.group(2)
        if ref in names:
            found.add(ref)
    _address_taken[id(module)] = (weakref.ref(module), found)
    return found


_REFERENCE = re.compile(r'@(?:"([^"]+)"|([-\w.$]+))(?!\s*\()')
"""`@name` not followed by `(`: direct calls (and definitions) are `@name(`."""


def _body(fn: Function) -> str:
    text = print_function(fn)
    return text.split("\n", 1)[1] if "\n" in text else ""  # the header names fn itself


def candidates(module: Module, call: CallBase) -> tuple[list[Function], list[Function]]:
    """Functions an indirect `call` may reach, by type and address taken: those
    with a body (derivable) and declarations (no body to differentiate)."""
    ftype = call.function_type
    defined: list[Function] = []
    external: list[Function] = []
    for name in sorted(address_taken(module)):
        fn = module.functions[name]
        if fn.function_type.vararg or (fn.function_type.ret, fn.function_type.params) != (ftype.ret, ftype.params):
            continue
        (external if fn.is_declaration else defined).append(fn)
    return defined, external


def pair_global(module: Module, split: DerivedPair) -> GlobalVariable:
    """The constant `{augmented, reverse}` of one derived pair (made once)."""
    name = f"{split.augmented.name}.shadow"
    got = module.globals.get(name)
    if got is None:
        got = module.add_global(name, PAIR, ConstantAggregate(PAIR, [split.augmented, split.reverse]),
                                constant=True)
        got.linkage.words = ["internal"]
    return got


def shadow_of_pointer(module: Module, b: IRBuilder, fp: Value, targets: list[tuple[Function, DerivedPair]]) -> Value:
    """Forward code: the pair of the function `fp` points to (a trap pair if none)."""
    shadow: Value = _unknown_pair(module, targets[0][1])
    for fn, split in reversed(targets):
        hit = b.icmp("eq", fp, fn, "fp.is")
        shadow = b.select(hit, pair_global(module, split), shadow, "fp.shadow")
    return shadow


def pick_derivative(module: Module, b: IRBuilder, fp: Value, targets: list[tuple[Function, Function]]) -> Value:
    """Forward mode: the derivative (of `targets`, function -> its derivative) of the
    function `fp` points to; one that aborts with `MESSAGE` if none."""
    chosen: Value = _trap_function(module, targets[0][1].function_type)
    for fn, derivative in reversed(targets):
        hit = b.icmp("eq", fp, fn, "fp.is")
        chosen = b.select(hit, derivative, chosen, "fp.fwd")
    return chosen


def _unknown_pair(module: Module, like: DerivedPair) -> GlobalVariable:
    """A pair of the types of `like` whose functions report an unknown target and abort."""
    fa = _trap_function(module, like.augmented.function_type)
    fr = _trap_function(module, like.reverse.function_type)
    gv = module.add_global("__enzc_unknown_target.pair", PAIR, ConstantAggregate(PAIR, [fa, fr]), constant=True)
    gv.linkage.words = ["internal"]
    return gv


MESSAGE = b"enzc: an indirect call in differentiated code reached a function without a derivative " \
          b"(not defined in the program's bitcode)\n"


def _trap_function(module: Module, ftype: FunctionType) -> Function:
    """A function of type `ftype` that prints `MESSAGE` to stderr and aborts."""
    fn = module.add_function("__enzc_unknown_target", ftype)
    fn.linkage.words = ["internal"]
    fn.blocks = []
    b = IRBuilder(new_block(fn, "entry"))
    msg = _message_global(module)
    b.call(declare(module, "write"), [ConstantInt(I32, 2), msg, ConstantInt(I64, len(MESSAGE))])
    b.call(declare(module, "abort"), [])
    b.unreachable()
    return fn


def _message_global(module: Module) -> GlobalVariable:
    name = "__enzc_unknown_target.msg"
    got = module.globals.get(name)
    if got is None:
        from enzc.ir.values import ConstantString

        got = module.add_global(name, ArrayType(len(MESSAGE), IntType(8)), ConstantString(ArrayType(len(MESSAGE), IntType(8)), MESSAGE), constant=True)
        got.linkage.words = ["private"]
    return got
