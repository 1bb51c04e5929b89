"""Type facts from TBAA metadata (`!tbaa`, `!tbaa.struct`) as memory type trees.

clang's struct-path TBAA names the C type of every scalar access: an access tag
`!{base, access, i64 offset}` says "this load/store touches the `access` scalar
at `offset` inside a `base` object". We turn the access type into the type of
the accessed bytes, and the whole `base` layout into the types of its other
members relative to the accessed pointer (members before it are dropped).
LLVM 22 also distinguishes pointers by pointee (`p1 double`, `p2 int`): those
give the pointed-to scalar at offset 0 (not at every offset — an `int*` may
point at one `int` member of a struct).

Names that carry no type (`omnipotent char`, unions, enums spelled as mangled
names, `any pointer` beyond being a pointer) contribute nothing.

Both of LLVM's formats are read. The classic one (what clang emits by default):
type nodes `!{!"name", !member, i64 offset, ...}` (a scalar: `!{!"int", !parent,
i64 0}`), tags `!{base, access, i64 offset[, i64 const]}`. The size-aware one
(`-Xclang -new-struct-path-tbaa`): type nodes `!{!parent, i64 size, !"name",
(!member, i64 offset, i64 size)*}`, tags `!{base, access, i64 offset, i64 size[,
i64 immutable]}`; there a member larger than its type is an array of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from enzc.ir.datalayout import for_module
from enzc.ir.metadata import Metadata, MDRaw, MDRef, MDString, MDTuple, MDValue
from enzc.ir.module import Module
from enzc.ir.values import ConstantInt

from enzc.ad.typeanalysis.declared_records import Member, char_member_sizes
from enzc.ad.typeanalysis.typetree import INTEGER, POINTER, BaseType, Kind, Path, TypeTree, float_type

_FLOAT_NAMES = {
    "float": "float",
    "double": "double",
    "long double": "x86_fp80",
    "__float128": "fp128",
    "_Float128": "fp128",
    "_Float16": "half",
    "__fp16": "half",
    "__bf16": "bfloat",
}
_INT_SIZES = {
    "bool": 1, "_Bool": 1, "short": 2, "int": 4, "long": 8, "long long": 8,
    "__int128": 16, "unsigned __int128": 16, "wchar_t": 4, "char8_t": 1, "char16_t": 2,
    "char32_t": 4,
}
_SCALAR_SIZES = {**_INT_SIZES, "float": 4, "double": 8, "long double": 16, "__float128": 16, "_Float128": 16,
                 "_Float16": 2, "__fp16": 2, "__bf16": 2, "any pointer": 8, "vtable pointer": 8}
"""Bytes of each scalar clang's TBAA names, as laid out in a struct on x86-64 (a
larger figure elsewhere only makes a gap after it look smaller)."""
_POINTER_SIZE = 8
INTEGER_TYPE_NAMES = frozenset(_INT_SIZES)
"""TBAA names of integer scalars (signed and unsigned share a name)."""
_POINTER_NAMES = {"any pointer", "vtable pointer"}
_POINTER_RE = re.compile(r"(?:any )?p(\d+) (.+)")
_ANY_PN_RE = re.compile(r"any p\d+ pointer")

_MAX_STRUCT_DEPTH = 8
_CLANG_VERSION = re.compile(r"\bclang version (\d+)")
_FIRST_CLANG_LISTING_BASES = 19
"""The oldest clang checked to list base classes in TBAA type nodes."""
_MAX_ARRAY_ELEMENTS = 64
"""Elements of an array member typed one by one (the rest stay unknown)."""


@dataclass(frozen=True)
class TypeNode:
    """A TBAA type node in either format."""

    name: str | None
    members: tuple[tuple[Metadata | None, int | None, int | None], ...]
    """(type node, offset, size) of each member; the size is None in the classic
    format (and a scalar's parent is its member at offset 0 there)."""
    size: int | None = None


class TBAAReader:
    """Reads TBAA nodes of one module, memoising the layout of each type node."""

    def __init__(self, module: Module | None) -> None:
        self.module = module
        self._layouts: dict[int, TypeTree] = {}
        self._empty: dict[int, tuple[tuple[int, int], ...]] = {}
        self._padding: dict[int, tuple[tuple[int, int], ...]] = {}
        self._chars: dict[int, dict[int, int]] = {}
        self.layout = for_module(module) if module is not None else None
        self._lists_bases: bool | None = None

    # -- metadata plumbing -----------------------------------------------------------
    def resolve(self, md: Metadata | None) -> Metadata | None:
        """Follow `!N` references to the node they name."""
        seen = 0
        while isinstance(md, MDRef) and self.module is not None and seen < 64:
            md = self.module.metadata.get(md.id)
            seen += 1
        return md

    def operands(self, md: Metadata | None) -> list[Metadata | None]:
        node = self.resolve(md)
        if isinstance(node, MDTuple):
            return list(node.operands)
        if isinstance(node, MDRaw):
            return _raw_tuple_operands(node.text)
        return []

    def string(self, md: Metadata | None) -> str | None:
        node = self.resolve(md)
        if isinstance(node, MDString):
            return node.text
        if isinstance(node, MDRaw) and node.text.startswith('!"') and node.text.endswith('"'):
            return node.text[2:-1]
        return None

    def integer(self, md: Metadata | None) -> int | None:
        node = self.resolve(md)
        if isinstance(node, MDValue) and isinstance(node.value, ConstantInt):
            return node.value.value
        if isinstance(node, MDRaw):
            m = re.fullmatch(r"i\d+ (-?\d+)", node.text.strip())
            if m:
                return int(m.group(1))
        return None

    # -- type nodes ------------------------------------------------------------------
    def type_node(self, md: Metadata | None) -> TypeNode | None:
        """The type node `md` names, in either format (None: not a type node)."""
        ops = self.operands(md)
        if not ops:
            return None
        name = self.string(ops[0])
        if name is not None:  # classic: !{!"name", !member, i64 offset, ...}
            return TypeNode(name, tuple((ops[i], self.integer(ops[i + 1]), None)
                                        for i in range(1, len(ops) - 1, 2)))
        if len(ops) >= 3 and (name := self.string(ops[2])) is not None:  # size-aware
            return TypeNode(name, tuple((ops[i], self.integer(ops[i + 1]), self.integer(ops[i + 2]))
                                        for i in range(3, len(ops) - 2, 3)), self.integer(ops[1]))
        return None

    def access_type_name(self, tag_md: Metadata | None) -> str | None:
        """The name of the scalar type an access tag says is accessed."""
        ops = self.operands(tag_md)
        access = self.type_node(ops[1]) if len(ops) >= 3 else None
        return access.name if access is not None else None

    def type_layout(self, node_md: Metadata | None, depth: int = 0) -> TypeTree:
        """The memory tree of an object of the TBAA type `node_md`, at offset 0."""
        node = self.resolve(node_md)
        if node is None or depth > _MAX_STRUCT_DEPTH:
            return TypeTree()
        key = id(node)
        cached = self._layouts.get(key)
        if cached is not None:
            return cached
        info = self.type_node(node)
        tree = TypeTree()
        if info is not None and info.name is not None:
            scalar = scalar_tree(info.name, info.size if info.name in _INT_SIZES else None)
            if scalar is not None:
                tree = scalar
            elif info.members and not _is_root_like(info.name):
                tree = self._members_layout(info, depth)
        self._layouts[key] = tree
        return tree

    def _members_layout(self, info: TypeNode, depth: int) -> TypeTree:
        members: dict[Path, BaseType] = {}
        for member, offset, size in info.members:
            if offset is None:
                continue
            sub = self.type_layout(member, depth + 1)
            element = self.type_node(member)
            step = element.size if element is not None else None
            count = size // step if size and step and size > step and size % step == 0 else 1
            for k in range(min(count, _MAX_ARRAY_ELEMENTS)):
                for p, t in sub.shift(offset + k * (step or 0)).items():
                    members[p] = members[p].join(t) if p in members else t
        return TypeTree(members)

    def access_base(self, tag_md: Metadata | None) -> tuple[Metadata | None, int] | None:
        """(base type node, offset of the accessed member in it) of an access tag."""
        ops = self.operands(tag_md)
        offset = self.integer(ops[2]) if len(ops) >= 3 else None
        return (ops[0], offset) if offset is not None else None

    def empty_member_ranges(self, node_md: Metadata | None, depth: int = 0) -> tuple[tuple[int, int], ...]:
        """[start, end) byte ranges of an object of TBAA type `node_md` that hold an
        empty class member and the padding after it, up to the next member (see
        `padding`); a last member's tail is left out (a derived class may reuse it)."""
        node = self.resolve(node_md)
        if node is None or depth > _MAX_STRUCT_DEPTH or not self.lists_base_classes:
            return ()
        cached = self._empty.get(id(node))
        if cached is not None:
            return cached
        info = self.type_node(node)
        out: list[tuple[int, int]] = []
        if info is not None and _is_struct_name(info.name):
            members = [(offset, member) for member, offset, _ in info.members if offset is not None]
            for i, (offset, member) in enumerate(members):
                if not self.is_empty_class(member):
                    out += [(offset + lo, offset + hi) for lo, hi in self.empty_member_ranges(member, depth + 1)]
                    continue
                others = [o for j, (o, _) in enumerate(members) if j != i]
                following = [o for o in others if o > offset]
                if offset not in others and following:
                    out.append((offset, min(following)))
        self._empty[id(node)] = result = tuple(out)
        return result

    def padding_ranges(self, node_md: Metadata | None, depth: int = 0) -> tuple[tuple[int, int], ...]:
        """[start, end) byte ranges of an object of TBAA type `node_md` that are
        padding: from the end of a member whose size the node shows (a scalar, a
        record ending in one, a sized member of the size-aware format) to the next
        member, and, in a C struct, from the last member to its size (the size-aware
        format) or to the next multiple of its widest scalar. A classic-format
        member named `omnipotent char` (a `char`, an array, a union, a vector, a
        complex) may run on, so no gap follows it unless clang's IR declaration of
        the record shows a `char` or `char` array there (`char_ranges`); a C++
        class's tail is left out (a derived class may reuse it)."""
        node = self.resolve(node_md)
        if node is None or depth > _MAX_STRUCT_DEPTH:
            return ()
        cached = self._padding.get(id(node))
        if cached is not None:
            return cached
        info = self.type_node(node)
        out: list[tuple[int, int]] = []
        if info is not None and _is_struct_name(info.name):
            ends: dict[int, int | None] = {}
            chars = self._char_sizes(node)
            for member, offset, size in info.members:
                if offset is None:
                    continue
                out += [(offset + lo, offset + hi) for lo, hi in self.padding_ranges(member, depth + 1)]
                extent = size if size is not None else self._extent(member, depth + 1) or chars.get(offset)
                known = ends.get(offset, 0)
                ends[offset] = None if extent is None or known is None else max(known, offset + extent)
            starts = sorted(ends)
            for here, following in zip(starts, starts[1:]):
                end = ends[here]
                if end is not None and end < following:
                    out.append((end, following))
            tail_from = ends[starts[-1]] if starts else None
            if tail_from is not None and not (info.name or "").startswith("_ZTS"):
                align = self._widest_scalar(node, depth)
                tail_to = info.size if info.size is not None else -(-tail_from // max(align, 1)) * align
                if tail_to > tail_from:
                    out.append((tail_from, tail_to))
        self._padding[id(node)] = result = tuple(sorted(set(out)))
        return result

    def char_ranges(self, node_md: Metadata | None, depth: int = 0) -> tuple[tuple[int, int], ...]:
        """[start, end) byte ranges of an object of TBAA type `node_md` that hold a
        `char` or a `char` array member (as clang's IR declaration of the record
        shows, `declared_records`): characters, no floating-point data."""
        node = self.resolve(node_md)
        info = self.type_node(node)
        if info is None or depth > _MAX_STRUCT_DEPTH or not _is_struct_name(info.name):
            return ()
        out = [(offset, offset + n) for offset, n in self._char_sizes(node).items()]
        for member, offset, _ in info.members:
            if offset is not None:
                out += [(offset + lo, offset + hi) for lo, hi in self.char_ranges(member, depth + 1)]
        return tuple(sorted(set(out)))

    def _char_sizes(self, node: Metadata | None) -> dict[int, int]:
        """Bytes of the `omnipotent char` members of record `node` that the IR
        declaration sizes, by offset (classic format only: the other sizes them)."""
        cached = self._chars.get(id(node))
        if self.layout is None:
            return {}
        if cached is None:
            info = self.type_node(node)
            members: list[Member] = []
            for member, offset, size in info.members if info is not None else ():
                member_info = self.type_node(member)
                name = member_info.name if member_info is not None else None
                if offset is not None and size is None:
                    members.append((offset, *_member_kind(name)))
            cached = self._chars[id(node)] = char_member_sizes(self.module, self.layout, info.name if info else None,
                                                             members)
        return cached

    def _extent(self, node_md: Metadata | None, depth: int) -> int | None:
        """Bytes from the start of a member of type `node_md` to the end of its last
        scalar; None where a member of unknown size ends it."""
        info = self.type_node(node_md)
        if info is None or info.name is None or depth > _MAX_STRUCT_DEPTH:
            return None
        size = _scalar_size(info.name)
        if size is not None:
            return size
        if not _is_struct_name(info.name) or not info.members:
            return None
        last = max((offset for _, offset, _ in info.members if offset is not None), default=None)
        if last is None:
            return None
        ends = [size if size is not None else self._extent(member, depth + 1)
                for member, offset, size in info.members if offset == last]
        return None if None in ends else last + max(e for e in ends if e is not None)

    def _widest_scalar(self, node_md: Metadata | None, depth: int) -> int:
        """The largest alignment among the scalars a record node shows (at most 16)."""
        info = self.type_node(node_md)
        if info is None or info.name is None or depth > _MAX_STRUCT_DEPTH:
            return 0
        size = _scalar_size(info.name)
        if size is not None:
            return min(size & -size, 16)
        if not _is_struct_name(info.name):
            return 0
        return max((self._widest_scalar(m, depth + 1) for m, _, _ in info.members), default=0)

    @property
    def lists_base_classes(self) -> bool:
        """Whether every producer the module names (`!llvm.ident`) is a clang that
        lists a class's non-empty bases as members of its TBAA node (19 and 22 do;
        older ones left bases out, so a class holding data only through its bases,
        `std::vector`, had a node without members, as an empty class has)."""
        if self._lists_bases is None:
            idents = self.module.named_metadata.get("llvm.ident", []) if self.module is not None else []
            producers = [self.string(next(iter(self.operands(MDRef(i))), None)) or "" for i in idents]
            self._lists_bases = bool(producers) and all(map(_clang_listing_bases, producers))
        return self._lists_bases

    def is_empty_class(self, node_md: Metadata | None) -> bool:
        """Whether `node_md` is a struct type node without members (and, in the
        size-aware format, of one byte): clang's node for an empty class."""
        info = self.type_node(node_md)
        return info is not None and _is_struct_name(info.name) and not info.members \
            and info.size in (None, 1)

    def access_tree(self, tag_md: Metadata | None, access_size: int | None = None) -> TypeTree:
        """Memory tree at the accessed pointer for a `!tbaa` access tag.

        The scalar at offset 0 comes from the access type (integers cover
        `access_size` bytes when given); the rest of the base object's layout
        is shifted so the accessed member sits at 0.
        """
        ops = self.operands(tag_md)
        if len(ops) < 3:
            return TypeTree()
        offset = self.integer(ops[2]) or 0
        access_name = self.access_type_name(tag_md)
        base = self.type_node(ops[0])
        if access_size is None and base is not None and base.size is not None and len(ops) >= 4:
            access_size = self.integer(ops[3])  # size-aware tags say how many bytes they touch
        tree = TypeTree()
        if access_name is not None:
            scalar = scalar_tree(access_name, access_size)
            if scalar is not None:
                tree = scalar
        return tree.join(self.type_layout(ops[0]).shift(-offset))

    def struct_copy_tree(self, md: Metadata | None) -> TypeTree:
        """Memory tree described by a `!tbaa.struct` of a memcpy: `(offset, size, tag)*`."""
        ops = self.operands(md)
        tree = TypeTree()
        for i in range(0, len(ops) - 2, 3):
            offset, size = self.integer(ops[i]), self.integer(ops[i + 1])
            if offset is None or size is None:
                continue
            tree = tree.join(self.access_tree(ops[i + 2], size).window(0, size).shift(offset))
        return tree

    def struct_copy_padding(self, md: Metadata | None, length: int) -> tuple[tuple[int, int], ...]:
        """[start, end) ranges of a `length`-byte copy that no `!tbaa.struct` field
        covers: the padding of the copied struct. clang lists every member (an
        array, a bit-field's storage unit and a union each as one field) or, for
        what it cannot describe, emits no list; a list that is not sorted, overlaps
        or reaches past the copy (a copy that a pass shortened) gives nothing."""
        ops = self.operands(md)
        if not ops or len(ops) % 3:
            return ()
        gaps: list[tuple[int, int]] = []
        end = 0
        for i in range(0, len(ops), 3):
            offset, size = self.integer(ops[i]), self.integer(ops[i + 1])
            if offset is None or size is None or size <= 0 or offset < end or offset + size > length:
                return ()
            if offset > end:
                gaps.append((end, offset))
            end = offset + size
        if end < length:
            gaps.append((end, length))
        return tuple(gaps)


def scalar_tree(name: str, size: int | None = None) -> TypeTree | None:
    """The memory tree of one scalar named by TBAA (None: not a scalar name)."""
    if name in _FLOAT_NAMES:
        return TypeTree({(0,): float_type(_FLOAT_NAMES[name])})
    if name in _INT_SIZES:
        n = size if size is not None else _INT_SIZES[name]
        return TypeTree({(o,): INTEGER for o in range(n)})
    if name in _POINTER_NAMES or _ANY_PN_RE.fullmatch(name):
        return TypeTree({(0,): POINTER})
    m = _POINTER_RE.fullmatch(name)
    if m:
        levels, pointee = int(m.group(1)), m.group(2)
        inner = scalar_tree(pointee) or TypeTree()
        for _ in range(levels):
            inner = TypeTree({(0,): POINTER}).join(inner.only(0))
        return inner
    if name in ("omnipotent char", "Simple C/C++ TBAA", "Simple C++ TBAA"):
        return TypeTree()
    return None


def is_pointer_name(name: str | None) -> bool:
    """Whether TBAA's `name` is a pointer type (`any pointer`, `p1 double`, `any p2 pointer`)."""
    return name is not None and (name in _POINTER_NAMES or bool(_ANY_PN_RE.fullmatch(name))
                                 or bool(_POINTER_RE.fullmatch(name)))


def _member_kind(name: str | None) -> tuple[str, int | None]:
    """(kind, size) of a member named `name`, as `declared_records` compares them."""
    if name == "omnipotent char":
        return "char", None
    tree = scalar_tree(name) if name is not None else None
    first = tree.first_level().get(0) if tree is not None else None
    size = _scalar_size(name) if name is not None else None
    if first is None or size is None:
        return "record", None
    kinds = {Kind.FLOAT: "float", Kind.INTEGER: "integer", Kind.POINTER: "pointer"}
    return kinds.get(first.kind, "record"), size


def _scalar_size(name: str) -> int | None:
    """Bytes of the scalar TBAA names `name` (None: not a scalar of known size)."""
    if name in _SCALAR_SIZES:
        return _SCALAR_SIZES[name]
    return _POINTER_SIZE if is_pointer_name(name) else None


def _clang_listing_bases(producer: str) -> bool:
    """Whether `producer` (an `!llvm.ident` string) is an LLVM clang of a version
    that lists base classes (Apple's clang numbers its versions its own way)."""
    found = _CLANG_VERSION.search(producer)
    return found is not None and "Apple" not in producer and int(found.group(1)) >= _FIRST_CLANG_LISTING_BASES


def _is_struct_name(name: str | None) -> bool:
    """Whether a type node's name is a record's (not a scalar's, not a root's)."""
    return name is not None and not _is_root_like(name) and scalar_tree(name) is None


def _is_root_like(name: str) -> bool:
    return name.startswith("Simple C") or name == "omnipotent char"


_RAW_OPERAND = re.compile(r'\s*(!"(?:[^"\\]|\\.)*"|![0-9A-Za-z_.]+|i\d+ -?\d+|null)\s*(?:,|$)')


def _raw_tuple_operands(text: str) -> list[Metadata | None]:
    """Operands of a tuple kept as text, `!{!"int", !7, i64 0}`."""
    m = re.fullmatch(r"\s*(?:distinct\s+)?!\{(.*)\}\s*", text, re.S)
    if m is None:
        return []
    out: list[Metadata | None] = []
    for item in _iter_raw(m.group(1)):
        if item.startswith('!"'):
            out.append(MDString(item[2:-1].encode()))
        elif item.startswith("!"):
            out.append(MDRef(item[1:]))
        elif item == "null":
            out.append(None)
        else:
            out.append(MDRaw(item))
    return out


def _iter_raw(body: str) -> Iterator[str]:
    pos = 0
    while pos < len(body):
        m = _RAW_OPERAND.match(body, pos)
        if m is None:
            return
        yield m.group(1)
        pos = m.end()
