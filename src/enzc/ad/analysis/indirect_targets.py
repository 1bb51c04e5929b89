"""Which functions an indirect call may reach.

enzc differentiates whole programs (every translation unit is merged before AD), so
the targets of a call through a function pointer are among the module's
*address-taken* functions of the call's type: those used as values somewhere (an
operand that is not the callee of a direct call, a global initializer, an alias).
The shadow of a function pointer (`memory.fnptr`) and activity analysis (an
allocator reached through a pointer returns fresh memory) both ask this.
"""

from __future__ import annotations

import re
import weakref

from enzc.ir.instructions import CallBase
from enzc.ir.module import Function, Module
from enzc.ir.values import Constant, GlobalValue, Value, iter_constant_operands

_DERIVED_PREFIXES = ("diffe_", "split_", "augmented_", "reverse_", "__enzc_")

_address_taken: dict[int, tuple[weakref.ref, set[str]]] = {}
"""Per module (checked by a weak reference, ids are reused): the names found."""


def address_taken(module: Module) -> set[str]:
    """Names of functions used as values (not as the callee of a direct call): in
    global initializers, alias targets and the operands of instructions, inside
    constant expressions and aggregates too (computed once per module)."""
    got = _address_taken.get(id(module))
    if got is not None and got[0]() is module:
        return got[1]
    found: set[str] = set()
    for gv in module.globals.values():
        if gv.initializer is not None:
            _functions_in(gv.initializer, found)
    for a in module.aliases.values():
        _functions_in(a.target, found)
    for fn in module.functions.values():
        name = fn.name or ""
        if fn.is_declaration or name.startswith(_DERIVED_PREFIXES) or not _may_take_addresses(fn, module):
            continue
        for inst in fn.instructions():
            operands = inst.operands
            if isinstance(inst, CallBase) and isinstance(inst.callee, Function):
                operands = operands[:-1]  # the callee of a direct call (the last operand)
            for op in operands:
                _functions_in(op, found)
    _address_taken[id(module)] = (weakref.ref(module), found)
    return found


def _functions_in(value: Value, found: set[str]) -> None:
    """Add the names of the functions `value` is or holds (through constants)."""
    work = [value]
    seen: set[int] = set()
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, Function):
            found.add(v.name or "")
        elif isinstance(v, Constant) and not isinstance(v, GlobalValue):
            work.extend(iter_constant_operands(v))


_NAME = re.compile(r'@(?:"([^"]*)"|([-\w.$]+))(.?)')
"""A global name in IR text (quoted or not) and the character after it."""


def _may_take_addresses(fn: Function, module: Module) -> bool:
    """Whether `fn`'s body may use a function as a value. A body not yet parsed is
    parsed only if its text names a function otherwise than right before `(` (a
    direct callee is spelled `@f(`, a value never is): the text prunes, the parsed
    operands decide."""
    if fn.is_materialized or not fn.source_text:
        return True
    for m in _NAME.finditer(fn.source_text):
        name = m.group(1) if m.group(1) is not None else m.group(2)
        if m.group(3) != "(" and name in module.functions:
            return True
    return False


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
