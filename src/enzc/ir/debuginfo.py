"""Source positions from debug info, for clang-style diagnostics (`file:line:col`)."""

from __future__ import annotations

from enzc.ir.instructions import Instruction
from enzc.ir.metadata import Metadata, MDRef, MDSpecialized, SourceLocation, unquote
from enzc.ir.module import Function, GlobalVariable, Module

_MAX_SCOPE_DEPTH = 64
"""Scope chains are short; the bound protects against malformed cyclic metadata."""


def _node(module: Module, md: Metadata | None) -> MDSpecialized | None:
    """Follow `!N` references to a specialized node."""
    for _ in range(_MAX_SCOPE_DEPTH):
        if isinstance(md, MDRef):
            md = module.metadata.get(md.id)
        elif isinstance(md, MDSpecialized):
            return md
        else:
            return None
    return None


def _field_node(module: Module, node: MDSpecialized, key: str) -> MDSpecialized | None:
    text = node.get(key)
    if text is None or not text.startswith("!"):
        return None
    if text[1:].isdigit():
        return _node(module, MDRef(text[1:]))
    return None


def _file_of_scope(module: Module, scope: MDSpecialized | None) -> str | None:
    """The file name of a scope: its `file:` field, else that of its enclosing `scope:`."""
    for _ in range(_MAX_SCOPE_DEPTH):
        if scope is None:
            return None
        if scope.kind == "DIFile":
            name = scope.get("filename")
            return unquote(name) if name is not None else None
        file_node = _field_node(module, scope, "file")
        if file_node is not None and file_node.kind == "DIFile":
            return _file_of_scope(module, file_node)
        scope = _field_node(module, scope, "scope")
    return None


def _int_field(node: MDSpecialized, key: str) -> int:
    text = node.get(key)
    try:
        return int(text) if text is not None else 0
    except ValueError:
        return 0


def source_location(module: Module, inst: Instruction) -> SourceLocation | None:
    """Where `inst` came from: its `!dbg` DILocation and the file of the location's scope."""
    loc = _node(module, inst.metadata.get("dbg"))
    if loc is None or loc.kind != "DILocation":
        return None
    filename = _file_of_scope(module, _field_node(module, loc, "scope"))
    if filename is None:
        return None
    return SourceLocation(filename, _int_field(loc, "line"), _int_field(loc, "column"))


def inlined_at(module: Module, inst: Instruction) -> list[SourceLocation]:
    """Where the code holding `inst` was inlined, innermost call first (a constructor
    in a library header inlined into the user's function: the user's line)."""
    out: list[SourceLocation] = []
    loc = _node(module, inst.metadata.get("dbg"))
    for _ in range(_MAX_SCOPE_DEPTH):
        loc = _field_node(module, loc, "inlinedAt") if loc is not None else None
        if loc is None or loc.kind != "DILocation":
            break
        filename = _file_of_scope(module, _field_node(module, loc, "scope"))
        if filename is not None:
            out.append(SourceLocation(filename, _int_field(loc, "line"), _int_field(loc, "column")))
    return out


def function_location(module: Module, fn: Function) -> SourceLocation | None:
    """Where `fn` is defined, from its `!dbg` DISubprogram (column 0: unknown)."""
    sp = _node(module, fn.metadata.get("dbg"))
    if sp is None or sp.kind != "DISubprogram":
        return None
    filename = _file_of_scope(module, sp)
    if filename is None:
        return None
    return SourceLocation(filename, _int_field(sp, "line"), 0)


def global_location(module: Module, gv: GlobalVariable) -> SourceLocation | None:
    """Where global `gv` is defined, from its `!dbg` DIGlobalVariableExpression
    (column 0: unknown)."""
    expr = _node(module, gv.metadata.get("dbg"))
    var = _field_node(module, expr, "var") if expr is not None else None
    if var is None or var.kind != "DIGlobalVariable":
        return None
    filename = _file_of_scope(module, var)
    return SourceLocation(filename, _int_field(var, "line"), 0) if filename is not None else None
