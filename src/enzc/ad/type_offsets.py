"""Byte facts type analysis needs from the IR: what an IR type alone says about a
value, and which bytes a GEP moves a pointer by.

A GEP moves by a constant plus variable terms; for the variable part we only
need a number every possible offset is a multiple of (the *period*), so that an
array walk `a + 8*i` folds its pointee facts modulo 8. `multiple_of` finds that
number through `mul`/`shl`/`add`/casts/phis (optimistically through loop
phis: an induction variable stepping by 8 from 0 is a multiple of 8).
"""

from __future__ import annotations

import re
from math import gcd

from enzc.ir.datalayout import DataLayout, DataLayoutError
from enzc.ir.instructions import BinaryOp, Cast, GetElementPtr, Phi, Select
from enzc.ir.types import (
    FLOAT_KINDS,
    ArrayType,
    FloatType,
    IntType,
    NamedStructType,
    PointerType,
    StructType,
    Type,
    VectorType,
)
from enzc.ir.values import ConstantInt, Value

from enzc.ad.typetree import INTEGER, POINTER, BaseType, Path, TypeTree, float_type

_MAX_ARRAY_ENTRIES = 256
"""Arrays with more elements than this are seeded as `-1` (every element) at once."""


class TypeSeeds:
    """Value trees implied by IR types, memoised per type."""

    def __init__(self, layout: DataLayout) -> None:
        self.layout = layout
        self._cache: dict[Type, TypeTree] = {}

    def size(self, t: Type) -> int | None:
        """Store size in bytes, None for unsized types (void, label, opaque...)."""
        try:
            return self.layout.size_of(t)
        except (DataLayoutError, TypeError, ValueError):
            return None

    def alloc_size(self, t: Type) -> int | None:
        try:
            return self.layout.alloc_size_of(t)
        except (DataLayoutError, TypeError, ValueError):
            return None

    def of_type(self, t: Type) -> TypeTree:
        """What the IR type says: floats are floats, `ptr` is a pointer, `i1` and
        odd widths are integers. Byte-multiple integers say nothing (they move
        floats and pointers around in optimized code)."""
        cached = self._cache.get(t)
        if cached is None:
            cached = self._cache[t] = self._compute(t)
        return cached

    def _compute(self, t: Type) -> TypeTree:
        match t:
            case FloatType(kind=k):
                return TypeTree.scalar(float_type(k))
            case PointerType():
                return TypeTree.scalar(POINTER)
            case IntType(bits=b):
                return TypeTree.scalar(INTEGER) if b == 1 or b % 8 else TypeTree()
            case VectorType(element=e):
                inner = self.of_type(e)
                return TypeTree({p: v for p, v in inner.items() if p[0] == -1})
            case StructType() | NamedStructType():
                if t.elements is None or _is_union(t):  # type: ignore[union-attr]
                    return TypeTree()
                try:
                    offsets = self.layout.struct_layout(t).offsets
                except DataLayoutError:
                    return TypeTree()
                entries: dict[Path, BaseType] = {}
                for off, e in zip(offsets, t.elements):  # type: ignore[union-attr]
                    size = self.size(e) or 0
                    for p, v in self.of_type(e).expand(size).items():
                        entries[(p[0] + off, *p[1:])] = v
                size = self.size(t)
                tree = TypeTree(entries)
                return tree.canonicalize(size) if size else tree
            case ArrayType(count=n, element=e):
                inner = self.of_type(e)
                stride = self.alloc_size(e)
                esize = self.size(e)
                if not inner or not stride or not esize:
                    return TypeTree()
                if n > _MAX_ARRAY_ENTRIES:
                    uniform = set(inner.first_level()) == {-1} and esize == stride
                    return inner if uniform else TypeTree()
                entries = {}
                expanded = inner.expand(esize)
                for i in range(n):
                    for p, v in expanded.items():
                        entries[(p[0] + i * stride, *p[1:])] = v
                size = self.size(t)
                tree = TypeTree(entries)
                return tree.canonicalize(size) if size else tree
        return TypeTree()


def _is_union(t: Type) -> bool:
    """clang names a union after one member (`%union.U = type { double }`); its
    other members may be used too, so its IR type says nothing."""
    return isinstance(t, NamedStructType) and t.name.startswith("union.")


def multiple_of(v: Value, memo: dict[Value, int] | None = None) -> int:
    """A number `v` is always a multiple of (0: `v` is zero; 1: nothing known)."""
    memo = {} if memo is None else memo
    return _multiple(v, memo, 0)


def _multiple(v: Value, memo: dict[Value, int], depth: int) -> int:
    if isinstance(v, ConstantInt):
        return abs(v.value)
    if v in memo:
        return memo[v]
    if depth > 12:
        return 1
    memo[v] = 0  # optimistic for cycles through phis: the cycle adds no new factor
    result = 1
    match v:
        case BinaryOp(opcode="mul"):
            result = _multiple(v.lhs, memo, depth + 1) * _multiple(v.rhs, memo, depth + 1)
        case BinaryOp(opcode="shl") if isinstance(v.rhs, ConstantInt) and 0 <= v.rhs.value < 64:
            result = _multiple(v.lhs, memo, depth + 1) << v.rhs.value
        case BinaryOp(opcode="add" | "sub"):
            result = gcd(_multiple(v.lhs, memo, depth + 1), _multiple(v.rhs, memo, depth + 1))
        case BinaryOp(opcode="or") if "disjoint" in v.flags:
            result = gcd(_multiple(v.lhs, memo, depth + 1), _multiple(v.rhs, memo, depth + 1))
        case Cast(opcode="sext" | "zext"):
            result = _multiple(v.value, memo, depth + 1)
        case Phi():
            result = 0
            for inc, _ in v.incoming:
                result = gcd(result, _multiple(inc, memo, depth + 1))
        case Select():
            result = gcd(_multiple(v.true_value, memo, depth + 1), _multiple(v.false_value, memo, depth + 1))
    memo[v] = result
    return result


def gep_offset(gep: GetElementPtr, seeds: TypeSeeds, memo: dict[Value, int]) -> tuple[int, int] | None:
    """`(constant, period)` of the bytes `gep` adds to its pointer: the offset is
    `constant + k*period` for some integer k; period 0 means all indices are
    constant. None when the GEP cannot be measured (vector GEPs, unsized types)."""
    if isinstance(gep.type, VectorType):
        return None
    t: Type = gep.source_type
    const, period = 0, 0
    for n, idx in enumerate(gep.indices):
        if n == 0:
            scale = seeds.alloc_size(t)
        else:
            match t:
                case StructType() | NamedStructType():
                    if not isinstance(idx, ConstantInt):
                        return None
                    try:
                        const += seeds.layout.element_offset(t, idx.value)
                    except (DataLayoutError, IndexError):
                        return None
                    t = t.elements[idx.value]  # type: ignore[index]
                    continue
                case ArrayType(element=e) | VectorType(element=e):
                    t = e
                    scale = seeds.alloc_size(e)
                case _:
                    return None
        if scale is None:
            return None
        if isinstance(idx, ConstantInt):
            const += idx.value * scale
        elif isinstance(idx.type, IntType):
            period = gcd(period, scale * multiple_of(idx, memo))
        else:
            return None
    return const, period


_TYPE_TOKEN = re.compile(r'\s*(i\d+|half|bfloat|float|double|x86_fp80|fp128|ppc_fp128|ptr(?:\s+addrspace\(\d+\))?'
                         r'|%[-a-zA-Z$._0-9]+|%"[^"]*"|\[|<\{|<|\{|x|\]|\}>|>|\}|,|\d+)')


def parse_type_prefix(text: str, pos: int, named: dict[str, NamedStructType]) -> tuple[Type, int] | None:
    """The IR type spelled at `text[pos:]` and where it ends (None: not understood).

    Constant GEP expressions keep their source type only as text; this reads
    the types they use (integers, floats, `ptr`, arrays, vectors, structs,
    named structs) so their byte offsets can be computed.
    """

    def token(at: int) -> tuple[str, int] | None:
        m = _TYPE_TOKEN.match(text, at)
        return (m.group(1), m.end()) if m else None

    def parse(at: int, depth: int) -> tuple[Type, int] | None:
        tok = token(at)
        if tok is None or depth > 16:
            return None
        t, at = tok
        if t.startswith("i") and t[1:].isdigit():
            return IntType(int(t[1:])), at
        if t in FLOAT_KINDS:
            return FloatType(t), at
        if t.startswith("ptr"):
            m = re.search(r"\((\d+)\)", t)
            return PointerType(int(m.group(1)) if m else 0), at
        if t.startswith("%"):
            name = t[2:-1] if t.startswith('%"') else t[1:]
            return (named[name], at) if name in named else None
        if t in ("[", "<"):
            count = token(at)
            if count is None or not count[0].isdigit():
                return None
            x = token(count[1])
            if x is None or x[0] != "x":
                return None
            inner = parse(x[1], depth + 1)
            close = token(inner[1]) if inner else None
            if inner is None or close is None or close[0] != ("]" if t == "[" else ">"):
                return None
            kind = ArrayType if t == "[" else VectorType
            return kind(int(count[0]), inner[0]), close[1]
        if t in ("{", "<{"):
            elements: list[Type] = []
            end = "}" if t == "{" else "}>"
            nxt = token(at)
            if nxt is not None and nxt[0] == end:
                return StructType((), t == "<{"), nxt[1]
            while True:
                inner = parse(at, depth + 1)
                if inner is None:
                    return None
                elements.append(inner[0])
                sep = token(inner[1])
                if sep is None:
                    return None
                at = sep[1]
                if sep[0] == end:
                    return StructType(tuple(elements), t == "<{"), at
                if sep[0] != ",":
                    return None
        return None

    return parse(pos, 0)
