"""LLVM's rules for `getelementptr` operands, shared by the instruction and the
constant expression (the parser builds both without checking their indices).

The base is a pointer or a vector of pointers; every index is an integer or a
vector of integers, and all vectors (base and indices) have one width. With any
index (always, for the instruction) the source element type must be sized. The first index steps over the
pointer; each later one steps into the current type: into an array or a vector by
any integer, into a struct only by an `i32` constant (or a vector of one `i32`
constant repeated) naming a field. A vector GEP's result is a vector of pointers.
"""

from __future__ import annotations

from collections.abc import Sequence

from enzc.ir.types import (
    ArrayType,
    FloatType,
    IntType,
    NamedStructType,
    PointerType,
    StructType,
    TargetExtType,
    Type,
    VectorType,
    X86AMXType,
)
from enzc.ir.values import ConstantAggregate, ConstantInt, ConstantSimple, ConstantSplat, Value


def gep_problem(source: Type, base: Value, indices: Sequence[Value], result: Type | None,
                *, instruction: bool = True) -> str | None:
    """Why LLVM rejects a GEP of `source` over `base` by `indices` giving `result`
    (None: not checked), or None when it is valid. An instruction's source must be
    sized even without indices (LLVM's verifier), a constant's only with some."""
    if not isinstance(base.type.scalar, PointerType):
        return f"base operand must be a pointer, got {base.type}"
    width = base.type if isinstance(base.type, VectorType) else None
    for k, idx in enumerate(indices):
        if not isinstance(idx.type.scalar, IntType):
            return f"index {k} is not an integer ({idx.type})"
        if isinstance(idx.type, VectorType):
            if width is not None and (width.count, width.scalable) != (idx.type.count, idx.type.scalable):
                return f"index {k} ({idx.type}) has another vector width than {width}"
            width = idx.type
    if (indices or instruction) and not is_sized(source):
        return f"the source element type {source} is not sized"
    if isinstance(source, (StructType, NamedStructType)) and _has_scalable(source, set()):
        return f"cannot index into {source}, a struct holding a scalable vector"
    t = source
    for k, idx in enumerate(indices[1:], start=1):
        step = _step(t, idx)
        if isinstance(step, str):
            return f"index {k}: {step}"
        t = step
    if result is not None:
        expected = base.type.scalar
        if width is not None:
            expected = VectorType(width.count, expected, width.scalable)
        if result != expected:
            return f"result type {result}, expected {expected}"
    return None


def _step(t: Type, idx: Value) -> Type | str:
    """The type one index `idx` selects inside `t`, or why it cannot."""
    match t:
        case StructType(elements=elements) | NamedStructType(elements=elements) if elements is not None:
            if idx.type.scalar != IntType(32) or (isinstance(idx.type, VectorType) and idx.type.scalable):
                return f"an index into struct {t} must be an i32 constant, got {idx.type}"
            field = _constant_index(idx)
            if field is None:
                return f"an index into struct {t} must be a constant (the same in every lane)"
            if field >= len(elements):
                return f"field {field} is out of range for {t}"
            return elements[field]
        case ArrayType(element=e) | VectorType(element=e):
            return e
    return f"cannot index into {t}"


def _constant_index(idx: Value) -> int | None:
    """The unsigned value of a constant struct index (a splat's, for vectors)."""
    match idx:
        case ConstantInt():
            return idx.unsigned
        case ConstantSimple(keyword="zeroinitializer"):
            return 0
        case ConstantSplat():
            return _constant_index(idx.element)
        case ConstantAggregate(elements=[first, *rest]):
            values = {_constant_index(e) for e in (first, *rest)}
            return values.pop() if len(values) == 1 else None
    return None


def is_sized(t: Type, visiting: set[int] | None = None) -> bool:
    """Whether values of `t` have a size (LLVM's `Type::isSized`): not void, label,
    metadata, token, a function or an opaque struct, nor an aggregate holding one.
    A target extension type counts as sized (its layout is the target's)."""
    match t:
        case IntType() | FloatType() | PointerType() | X86AMXType() | TargetExtType():
            return True
        case ArrayType(element=e) | VectorType(element=e):
            return is_sized(e, visiting)
        case StructType(elements=elements):
            return all(is_sized(e, visiting) for e in elements)
        case NamedStructType(elements=elements):
            visiting = visiting if visiting is not None else set()
            if elements is None or id(t) in visiting:
                return False
            visiting.add(id(t))
            sized = all(is_sized(e, visiting) for e in elements)
            visiting.discard(id(t))
            return sized
    return False


def _has_scalable(t: Type, visiting: set[int]) -> bool:
    match t:
        case VectorType(scalable=True):
            return True
        case ArrayType(element=e):
            return _has_scalable(e, visiting)
        case StructType(elements=elements) | NamedStructType(elements=elements) if elements is not None:
            if id(t) in visiting:
                return False
            visiting.add(id(t))
            return any(_has_scalable(e, visiting) for e in elements)
    return False
