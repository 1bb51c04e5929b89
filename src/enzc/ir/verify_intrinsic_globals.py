"""The special global variables LLVM gives a meaning to (`@llvm.used`,
`@llvm.compiler.used`, `@llvm.global_ctors`, `@llvm.global_dtors`), checked as LLVM's
verifier checks them.

- with an initializer, they must have `appending` linkage (a declaration may have any);
- nothing may refer to them (an instruction, another global's initializer, an alias);
- `appending` is only for arrays, whatever the name;
- `llvm.used` / `llvm.compiler.used` are arrays of pointers whose initializer lists
  named globals, functions or aliases (through casts); the ctor/dtor lists are arrays of
  `{ i32, ptr, ptr }`.
"""

from __future__ import annotations

from collections.abc import Iterator

from enzc.ir.module import GlobalVariable, Module
from enzc.ir.types import ArrayType, IntType, NamedStructType, PointerType, StructType, Type
from enzc.ir.values import (
    ConstantAggregate,
    ConstantExpr,
    ConstantSplat,
    GlobalValue,
    Value,
)

_USED = ("llvm.used", "llvm.compiler.used")
_STRUCTORS = ("llvm.global_ctors", "llvm.global_dtors")
_CASTS = ("bitcast", "addrspacecast")


def intrinsic_global_problems(module: Module) -> list[str]:
    """Every problem with `appending` linkage and the `llvm.*` lists in `module`."""
    problems: list[str] = []
    for var in module.globals.values():
        where = f"@{var.name}"
        appending = "appending" in var.linkage.words
        if appending and not isinstance(var.value_type, ArrayType):
            problems.append(f"{where}: only global arrays can have appending linkage")
        if var.name not in _USED + _STRUCTORS:
            continue
        if var.initializer is not None and not appending:
            problems.append(f"{where}: invalid linkage for intrinsic global variable "
                            "(a definition must be 'appending')")
        problems += [f"{where}: {p}" for p in _content_problems(var)]
    problems += _use_problems(module)
    return problems


def _content_problems(var: GlobalVariable) -> list[str]:
    array = var.value_type
    if not isinstance(array, ArrayType):
        return []
    if var.name in _STRUCTORS:
        return [] if _is_structor_entry(array.element) else \
            ["wrong type for intrinsic global variable (expected an array of { i32, ptr, ptr })"]
    if not isinstance(array.element, PointerType):
        return ["wrong type for intrinsic global variable (expected an array of pointers)"]
    init = var.initializer
    if init is None:
        return []
    if not isinstance(init, ConstantAggregate):
        return ["wrong initializer for intrinsic global variable (expected a list of globals)"]
    for element in init.elements:
        member = _strip_casts(element)
        if not isinstance(member, GlobalValue):
            return [f"invalid {var.name} member '{element.ref()}'"]
    return []


def _is_structor_entry(element: Type) -> bool:
    if not isinstance(element, (StructType, NamedStructType)):
        return False
    fields = element.elements
    return (fields is not None and len(fields) == 3 and fields[0] == IntType(32)
            and isinstance(fields[1], PointerType) and isinstance(fields[2], PointerType))


def _strip_casts(value: Value) -> Value:
    while isinstance(value, ConstantExpr) and value.opcode in _CASTS and value.operands:
        value = value.operands[0]
    return value


def _use_problems(module: Module) -> list[str]:
    """LLVM forbids any use of the four lists: they are read by the tools, not by code."""
    special = {module.globals[name] for name in _USED + _STRUCTORS if name in module.globals}
    if not special:
        return []
    roots: list[Value] = [v.initializer for v in module.globals.values()
                          if v.initializer is not None]
    roots += [alias.target for alias in module.aliases.values()]
    roots += [op for fn in module.functions.values() if fn.is_materialized
              for block in fn.blocks for inst in block.instructions for op in inst.operands]
    used = {value for root in roots for value in _constants_in(root) if value in special}
    return [f"@{var.name}: invalid uses of intrinsic global variable" for var in
            sorted(used, key=lambda v: v.name or "")]


def _constants_in(value: Value) -> Iterator[Value]:
    stack = [value]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, ConstantAggregate):
            stack += current.elements
        elif isinstance(current, ConstantSplat):
            stack.append(current.element)
        elif isinstance(current, ConstantExpr):
            stack += current.operands
