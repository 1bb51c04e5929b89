"""Checks of constants that the parser builds without looking inside: aggregates of
the wrong length or element types, `c"..."` strings of the wrong length, splats,
`getelementptr` expressions (verify_gep.py), float spellings LLVM cannot represent
exactly, and external globals with an initializer (LLVM's parser rejects all of
these)."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

from enzc.ir.module import GlobalVariable
from enzc.ir.types import ArrayType, FloatType, NamedStructType, StructType, Type, VectorType
from enzc.ir.values import (
    ConstantAggregate,
    ConstantExpr,
    ConstantFP,
    ConstantSplat,
    ConstantString,
    Value,
)
from enzc.ir.verify_gep import gep_problem

_EXACT_FORMATS = {"float": "<f", "half": "<e", "bfloat": "<f"}
"""Kinds whose decimal or double-hex spelling must be exactly representable (a bfloat
is a float whose low 16 bits are zero)."""


def global_problems(var: GlobalVariable) -> list[str]:
    """What is wrong with a global variable's initializer (or its presence)."""
    where = f"@{var.name}"
    if var.initializer is None:
        return []
    if var.linkage.linkage in ("external", "extern_weak") and "external" in var.linkage.words:
        return [f"{where}: an external global cannot have an initializer"]
    if var.initializer.type != var.value_type:
        return [f"{where}: initializer of type {var.initializer.type}, the global is "
                f"{var.value_type}"]
    return [f"{where}: {message}" for message in constant_problems(var.initializer)]


def constant_problems(value: Value) -> list[str]:
    """Why LLVM would reject the constant `value` (and the constants inside it)."""
    match value:
        case ConstantAggregate():
            return _aggregate_problems(value)
        case ConstantString():
            t = value.type
            if isinstance(t, ArrayType) and t.count != len(value.data):
                return [f"constant string of {len(value.data)} bytes for type {t}"]
        case ConstantSplat():
            t = value.type
            if isinstance(t, VectorType) and value.element.type != t.element:
                return [f"splat of {value.element.type} for type {t}"]
            return constant_problems(value.element)
        case ConstantFP():
            return _float_problems(value)
        case ConstantExpr():
            return _expression_problems(value)
    return []


def _expression_problems(value: ConstantExpr) -> list[str]:
    problems = [p for op in value.operands for p in constant_problems(op)]
    if value.opcode == "getelementptr" and value.source_type is not None and value.operands:
        base, *indices = value.operands
        problem = gep_problem(value.source_type, base, indices, value.type, instruction=False)
        if problem:
            problems.append(f"constant getelementptr: {problem}")
    return problems


def _members(t: Type) -> tuple[int, Callable[[int], Type]] | None:
    """How many members a constant of aggregate type `t` has and the type of each
    (not a list: a vector type may declare four billion lanes)."""
    match t:
        case ArrayType(count=n, element=e) | VectorType(count=n, element=e):
            return n, lambda _: e
        case StructType(elements=elements):
            return len(elements), elements.__getitem__
        case NamedStructType() if t.elements is not None:
            return len(t.elements), t.elements.__getitem__
    return None


def _aggregate_problems(value: ConstantAggregate) -> list[str]:
    members = _members(value.type)
    if members is None:
        return [f"aggregate constant for non-aggregate type {value.type}"]
    count, member = members
    if count != len(value.elements):
        return [f"{len(value.elements)} elements in a constant of type {value.type}"]
    for k, element in enumerate(value.elements):
        if element.type != member(k):
            return [f"element {k} of a {value.type} constant has type {element.type}"]
    return [p for element in value.elements for p in constant_problems(element)]


_HEX_LITERAL_KINDS = {"K": "x86_fp80", "L": "fp128", "M": "ppc_fp128", "H": "half", "R": "bfloat"}
"""The type each tagged hex literal (`0xK...`) is of; decimal and plain `0x` literals
are doubles, which LLVM narrows to half, bfloat or float when exact."""
_NARROW_MANTISSA_BITS = {"half": 10, "bfloat": 7, "float": 23}


def _literal_type_problem(text: str, kind: str) -> str | None:
    """LLParser: a literal of another type than the constant's (`x86_fp80 1.0`,
    `double 0xK...`), or a double NaN whose payload a narrower type cannot hold."""
    tag = text[2] if text.startswith("0x") and text[2:3] in _HEX_LITERAL_KINDS else None
    if (tag and _HEX_LITERAL_KINDS[tag] != kind) or \
            (not tag and kind not in ("half", "bfloat", "float", "double")):
        return f"floating point constant does not have type '{kind}'"
    if not tag and text.startswith("0x") and kind in _NARROW_MANTISSA_BITS:
        bits = int(text[2:], 16)
        dropped = bits & ((1 << (52 - _NARROW_MANTISSA_BITS[kind])) - 1)
        if (bits >> 52) & 0x7FF == 0x7FF and bits & ((1 << 52) - 1) and dropped:
            return f"floating point constant {text} invalid for type {kind}"
    return None


def _float_problems(value: ConstantFP) -> list[str]:
    kind = getattr(value.type, "kind", None)
    text = value.text or ""
    if isinstance(value.type, FloatType) and text and (problem := _literal_type_problem(text, kind)):
        return [problem]
    if not isinstance(value.type, FloatType) or kind not in _EXACT_FORMATS:
        return []
    if text.startswith(("0xH", "0xR", "0xK", "0xL", "0xM")) or math.isnan(value.value) \
            or math.isinf(value.value):
        return []
    try:
        narrowed = struct.unpack(_EXACT_FORMATS[kind], struct.pack(_EXACT_FORMATS[kind],
                                                                   value.value))[0]
    except OverflowError:
        narrowed = None
    if kind == "bfloat" and narrowed is not None and struct.unpack("<I", struct.pack("<f", narrowed))[0] & 0xFFFF:
        narrowed = None
    if narrowed != value.value:
        return [f"floating point constant {text or value.value} invalid for type {kind}"]
    return []
