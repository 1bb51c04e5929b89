"""clang's IR declaration of the record a TBAA type node names, for the sizes of its
`char` members.

In the classic TBAA format a `char` member, a `char` array, a union and a vector
are all an `omnipotent char` member without a size, so the node cannot tell a
one-byte `char tag` followed by seven bytes of padding from eight bytes that may
hold a `double` (a union). A `memcpy` of `struct { double x; char tag; double y; }`
then had bytes nothing types. clang's IR type for the same record (`%struct.S =
type { double, i8, double }`) tells them apart: a `char` or `char` array is `i8` or
`[N x i8]` there, a union a `%union` type. The type is found by name (C's `S` is
`%struct.S` or, renamed when modules were linked, `%struct.S.0`; C++'s `_ZTS1S` and
`_ZTSN2ns1SE` are `%struct.S`/`%class.S` and `%class.ns::S`) and believed only where
it agrees with the node at every member the node shows; when two such declarations
disagree on a member, neither answers.
"""

from __future__ import annotations

import re

from enzc.ir.datalayout import DataLayout, DataLayoutError
from enzc.ir.module import Module
from enzc.ir.types import ArrayType, FloatType, IntType, NamedStructType, PointerType, Type

_RENAMED = re.compile(r"\.\d+$")
_SOURCE_NAME = re.compile(r"(\d+)")


Member = tuple[int, str, int | None]
"""A TBAA record's member: offset, kind (`float`, `integer`, `pointer`: a scalar of
the size given; `char`: an `omnipotent char`; `record`) and size."""


def char_member_sizes(module: Module | None, layout: DataLayout, name: str | None,
                      members: list[Member]) -> dict[int, int]:
    """Bytes of each `char` member of a TBAA record named `name` whose IR
    declaration shows a `char` (1) or a `char` array (N), by offset."""
    answers: dict[int, int | None] = {}
    for decl in _declarations(module, name):
        elements = _elements_by_offset(decl, layout)
        if elements is None or not _agrees(elements, members, layout):
            continue
        for offset, kind, _ in members:
            if kind == "char":
                size = _char_bytes(elements[offset])
                if offset in answers and answers[offset] != size:
                    size = None
                answers[offset] = size
    return {offset: size for offset, size in answers.items() if size is not None}


def pointee_declaration(module: Module | None, pointer_name: str | None) -> NamedStructType | None:
    """The record a pointer's TBAA type names (`p1 _ZTS1P`: a `P *`, what clang 20 and
    later tag pointer loads with), when one IR declaration of it exists."""
    if not pointer_name or not pointer_name.startswith("p1 "):
        return None
    found = _declarations(module, pointer_name[3:])
    return found[0] if len(found) == 1 else None


def _declarations(module: Module | None, name: str | None) -> list[NamedStructType]:
    """The IR struct types that may declare the record TBAA names `name`."""
    source = _source_name(name)
    if module is None or source is None:
        return []
    wanted = {f"struct.{source}", f"class.{source}"}
    return [t for type_name, t in module.types.items()
            if _RENAMED.sub("", type_name) in wanted and t.elements is not None]


def _source_name(name: str | None) -> str | None:
    """The record's name as clang spells it in IR types: C's tag as it is, a C++
    type name demangled when it is a plain (possibly namespaced) name; None for
    templates and anything else."""
    if not name:
        return None
    if not name.startswith("_ZTS"):
        return name if re.fullmatch(r"[A-Za-z_]\w*", name) else None
    mangled = name[4:]
    nested = mangled.startswith("N") and mangled.endswith("E")
    body = mangled[1:-1] if nested else mangled
    parts, pos = [], 0
    while pos < len(body):
        digits = _SOURCE_NAME.match(body, pos)
        if digits is None:
            return None  # St, templates, substitutions: not a plain name
        length, pos = int(digits.group(1)), digits.end()
        parts.append(body[pos:pos + length])
        pos += length
    if not parts or pos != len(body) or (len(parts) > 1 and not nested):
        return None
    return "::".join(parts)


def _elements_by_offset(t: NamedStructType, layout: DataLayout) -> dict[int, Type] | None:
    try:
        offsets = layout.struct_layout(t).offsets
    except DataLayoutError:
        return None
    return dict(zip(offsets, t.elements or ()))


def _agrees(elements: dict[int, Type], members: list[Member], layout: DataLayout) -> bool:
    """Whether an element starts at every member's offset, of the member's kind and
    size where the member is a scalar."""
    for offset, kind, size in members:
        element = elements.get(offset)
        if element is None:
            return False
        if kind not in _SCALAR_KINDS:
            continue
        try:
            if not isinstance(element, _SCALAR_KINDS[kind]) or layout.alloc_size_of(element) != size:
                return False
        except (DataLayoutError, TypeError, ValueError):
            return False
    return True


_SCALAR_KINDS: dict[str, type] = {"float": FloatType, "integer": IntType, "pointer": PointerType}


def _char_bytes(element: Type) -> int | None:
    """1 for `i8`, N for `[N x i8]`; None for anything else (a union, a vector)."""
    if isinstance(element, IntType) and element.bits == 8:
        return 1
    if isinstance(element, ArrayType) and isinstance(element.element, IntType) and element.element.bits == 8:
        return element.count
    return None
