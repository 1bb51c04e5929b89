"""Type trees: what each byte of a value (and of the memory it points to) holds.

A `TypeTree` maps *paths* to `BaseType`s. A path is a tuple of byte offsets: the
first indexes the bytes of the value itself, each further one the bytes of the
memory reached by following the pointer found at the previous offset. `-1`
means "at every offset" (every element of an array; all bytes of a value). So a
`double*` argument is `{[-1]:Pointer, [-1,0]:Float@double}` and the paper's
`struct S { double d; int *p; }` reached through a pointer is

    {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Pointer, [-1,8,0]:Integer,
     [-1,8,1]:Integer, [-1,8,2]:Integer, [-1,8,3]:Integer}

A float or pointer entry at offset `o` describes the scalar *starting* at `o`
(8 bytes for a double); integers (and `Anything`) are byte-granular — an `int`
is four `Integer` entries — because an integer has no size of its own and any
byte of an integer is an integer. This is the convention of Enzyme's type trees
and its text form, which we print and parse (`str(tree)`, `parse_type_tree`).

The lattice of one entry (`BaseType.join`):

    Unknown < Anything < Integer < Pointer < Conflict
              Anything < Float@k          < Conflict

`Anything` is "any interpretation is fine" (zero bits, undef): it gives way to
any concrete type. A pointer may be moved as an integer (`ptrtoint`, `i64`
loads of pointers), so Integer joins Pointer to Pointer. Everything else that
meets — Float with Integer/Pointer, two float kinds — is `Conflict`, an
explicit top element: monotone joins keep the fixed point terminating, and the
queries the AD engine makes raise a diagnostic naming the value when the
answer is Conflict (Enzyme aborts on the spot with "Illegal updateAnalysis";
we only fail if the gradient needs the value).

Trees are immutable and hashable; every constructor normalises: unknown entries
dropped, paths deeper than `MAX_DEPTH`, offsets at/after `MAX_OFFSET` and the
deepest level of a tree with more than `MAX_ENTRIES` entries cut (losing
information, never inventing it), a parent of a non-empty path marked
Pointer, and entries made redundant by a `-1` entry of the same or larger type
removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from enum import IntEnum
from typing import Iterable, Iterator, Mapping

from enzc.ir.types import FLOAT_KINDS

Path = tuple[int, ...]

MAX_DEPTH = 6
"""Longest path kept: pointer-to-pointer chains deeper than this lose their tail."""
MAX_OFFSET = 4096
"""Offsets at or beyond this are dropped (keeps loops that walk memory finite)."""
MAX_ENTRIES = 512
"""Most entries a tree keeps; beyond, its deepest level goes (see `_shed_deepest`).
Integer bytes take an entry each, so this is about the largest object whose
header still leaves room for what its pointers point to (an Eigen tensor
evaluator: ~300 integer bytes and a kernel pointer whose floats show only where
another function indexes them; 128 shed those and its kernel copy had no type)."""
POINTER_SIZE = 8
"""Bytes of a pointer (x86-64, address space 0: the only target enzc supports)."""


class Kind(IntEnum):
    UNKNOWN = 0
    ANYTHING = 1
    INTEGER = 2
    POINTER = 3
    FLOAT = 4
    CONFLICT = 5


_FLOAT_SIZES = {"half": 2, "bfloat": 2, "float": 4, "double": 8, "x86_fp80": 10, "fp128": 16, "ppc_fp128": 16}
"""Bytes a float of each kind occupies (x86_fp80 stores 10 of its 16)."""
_FLOAT_STRIDES = {**_FLOAT_SIZES, "x86_fp80": 16}
"""Bytes between consecutive floats of each kind in an array."""


@dataclass(frozen=True, slots=True)
class BaseType:
    """The type of the bytes at one path: Unknown, Anything, Integer, Pointer,
    Float@kind or Conflict."""

    kind: Kind
    float_kind: str | None = None
    """The LLVM float kind (`double`, `float`, ...) when `kind` is FLOAT."""

    def __str__(self) -> str:
        if self.kind is Kind.FLOAT:
            return f"Float@{self.float_kind}"
        return self.kind.name.capitalize()

    def __repr__(self) -> str:
        return f"BaseType({self})"

    @property
    def is_known(self) -> bool:
        return self.kind is not Kind.UNKNOWN

    @property
    def is_float(self) -> bool:
        return self.kind is Kind.FLOAT

    @property
    def is_concrete(self) -> bool:
        """Integer, Pointer or a Float: a type that says how to differentiate."""
        return self.kind in (Kind.INTEGER, Kind.POINTER, Kind.FLOAT)

    @property
    def size(self) -> int:
        """Bytes one entry of this type covers (1 for byte-granular kinds)."""
        if self.kind is Kind.FLOAT:
            return _FLOAT_SIZES[self.float_kind]  # type: ignore[index]
        if self.kind is Kind.POINTER:
            return POINTER_SIZE
        return 1

    @property
    def stride(self) -> int:
        """Bytes between consecutive entries of this type in an array."""
        if self.kind is Kind.FLOAT:
            return _FLOAT_STRIDES[self.float_kind]  # type: ignore[index]
        return self.size

    def join(self, other: BaseType) -> BaseType:
        """Least upper bound in the lattice described in the module docstring."""
        if self is other or self == other:
            return self
        a, b = (self, other) if self.kind <= other.kind else (other, self)
        if a.kind <= Kind.ANYTHING:
            return b
        if a.kind is Kind.INTEGER and b.kind is Kind.POINTER:
            return b
        return CONFLICT


UNKNOWN = BaseType(Kind.UNKNOWN)
ANYTHING = BaseType(Kind.ANYTHING)
INTEGER = BaseType(Kind.INTEGER)
POINTER = BaseType(Kind.POINTER)
CONFLICT = BaseType(Kind.CONFLICT)


def float_type(kind: str) -> BaseType:
    """`Float@kind` for an LLVM float kind name."""
    if kind not in FLOAT_KINDS:
        raise ValueError(f"unknown float kind {kind!r}")
    return _FLOATS[kind]


_FLOATS = {k: BaseType(Kind.FLOAT, k) for k in FLOAT_KINDS}
DOUBLE = _FLOATS["double"]
FLOAT = _FLOATS["float"]


def _normalize(entries: dict[Path, BaseType]) -> dict[Path, BaseType]:
    """The canonical form of a path map (see the module docstring)."""
    out: dict[Path, BaseType] = {}
    for path, t in entries.items():
        if t.kind is Kind.UNKNOWN or not path or len(path) > MAX_DEPTH:
            continue
        if min(path) < -1 or max(path) >= MAX_OFFSET:
            continue
        old = out.get(path)
        out[path] = t if old is None else old.join(t)
    return _finish(out)


def _finish(out: dict[Path, BaseType]) -> dict[Path, BaseType]:
    """The normalisation steps for maps whose paths are valid (what restructuring
    a normalised tree yields): parents, size cap, subsumption."""
    # A path with children is a pointer.
    for path in list(out):
        if len(path) >= 2:
            _mark_parents(out, path)
    if len(out) > MAX_ENTRIES:
        out = _shed_deepest(out)
    # Entries made redundant by a more general one (a -1 where they have an offset).
    masks: dict[int, set[int]] = {}
    for path in out:
        masks.setdefault(len(path), set()).add(_mask(path))
    if all(len(ms) == 1 for ms in masks.values()):
        return out  # per length, every path has -1s in the same places: none is more general
    result: dict[Path, BaseType] = {}
    for path, t in out.items():
        cover = _cover(out, masks[len(path)], path)
        if cover.kind is Kind.UNKNOWN:
            result[path] = t
            continue
        joined = cover.join(t)
        if joined != cover:
            result[path] = joined
    return result


def _mark_parents(entries: dict[Path, BaseType], path: Path) -> list[Path]:
    """Make every proper prefix of `path` a pointer in `entries` (a path with children
    is a pointer); returns the prefixes that changed."""
    changed = []
    parent = path[:-1]
    while parent:
        old = entries.get(parent)
        new = POINTER if old is None else old.join(POINTER)
        if new is old:
            break
        entries[parent] = new
        changed.append(parent)
        parent = parent[:-1]
    return changed


def _cover(entries: dict[Path, BaseType], masks: Iterable[int], path: Path) -> BaseType:
    """The join of the entries more general than `path` (a -1 where it has an offset),
    among the -1 patterns `masks` of paths as long as it."""
    own = _mask(path)
    cover = UNKNOWN
    for m in masks:
        if m != own and m & own == own:
            g = entries.get(tuple(-1 if m >> i & 1 else o for i, o in enumerate(path)))
            if g is not None:
                cover = cover.join(g)
    return cover


def _join_in_place(merged: dict[Path, BaseType], changed: list[Path], masks: dict[int, list[int]]) -> bool:
    """Finish normalising `merged` — a normalised map whose entries at `changed`
    were just joined with another normalised tree's — touching only what the
    change can affect. Returns False (caller normalises fully) when the change
    is not local: a path too deep or far, a -1 pattern the map did not have, a
    path more general than existing ones, or too many entries."""
    if len(merged) > MAX_ENTRIES:
        return False
    work = list(changed)
    for path in changed:
        if len(path) > MAX_DEPTH or min(path) < -1 or max(path) >= MAX_OFFSET:
            return False
        work += _mark_parents(merged, path)
    for path in work:
        own = _mask(path)
        known = masks.get(len(path), ())
        if own not in known or any(m != own and m & own == m for m in known):
            return False  # new pattern, or more general than existing paths
    for path in work:
        t = merged.get(path)
        if t is None:
            continue
        cover = _cover(merged, masks[len(path)], path)
        if cover.kind is Kind.UNKNOWN:
            continue
        joined = cover.join(t)
        if joined == cover:
            del merged[path]
        else:
            merged[path] = joined
    return True


def _shed_deepest(entries: dict[Path, BaseType]) -> dict[Path, BaseType]:
    """Keep the paths up to the largest depth that fits in `MAX_ENTRIES` (recursive
    structures such as tree nodes otherwise grow exponentially with depth)."""
    by_len: dict[int, int] = {}
    for p in entries:
        by_len[len(p)] = by_len.get(len(p), 0) + 1
    keep, total = 0, 0
    for depth in sorted(by_len):
        if total + by_len[depth] > MAX_ENTRIES:
            break
        total += by_len[depth]
        keep = depth
    return {p: t for p, t in entries.items() if len(p) <= keep}


@lru_cache(maxsize=1 << 16)
def _mask(path: Path) -> int:
    """Bit i set when position i of `path` is -1."""
    m = 0
    for i, o in enumerate(path):
        if o == -1:
            m |= 1 << i
    return m


class TypeTree:
    """An immutable map from paths to base types; `str()` is the text form."""

    __slots__ = ("_map", "_hash", "_masks", "_memo")

    def __init__(self, entries: Mapping[Path, BaseType] | Iterable[tuple[Path, BaseType]] = ()) -> None:
        raw = dict(entries.items() if isinstance(entries, Mapping) else entries)
        self._map: dict[Path, BaseType] = dict(sorted(_normalize(raw).items()))
        self._hash: int | None = None
        self._masks: dict[int, list[int]] | None = None
        self._memo: dict[tuple, TypeTree] | None = None

    # -- constructors -----------------------------------------------------------------
    @classmethod
    def scalar(cls, t: BaseType) -> TypeTree:
        """A value all of whose bytes hold `t`: `{[-1]:t}`."""
        return cls({(-1,): t})

    @classmethod
    def pointer_to(cls, memory: TypeTree) -> TypeTree:
        """A pointer value whose pointee is described by `memory`."""
        return _pointer_to(memory)

    # -- mapping protocol -------------------------------------------------------------
    def __getitem__(self, path: Path) -> BaseType:
        """The entry stored exactly at `path` (Unknown if none); see `at` for lookup."""
        return self._map.get(tuple(path), UNKNOWN)

    def __iter__(self) -> Iterator[Path]:
        return iter(self._map)

    def __contains__(self, path: object) -> bool:
        return path in self._map

    def __len__(self) -> int:
        return len(self._map)

    def __bool__(self) -> bool:
        return bool(self._map)

    def items(self) -> Iterable[tuple[Path, BaseType]]:
        return self._map.items()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypeTree) and self._map == other._map

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple(self._map.items()))
        return self._hash

    def __str__(self) -> str:
        return "{" + ", ".join(f"[{','.join(map(str, p))}]:{t}" for p, t in self._map.items()) + "}"

    def __repr__(self) -> str:
        return f"TypeTree({self})"

    # -- lattice ----------------------------------------------------------------------
    def includes(self, other: TypeTree) -> bool:
        """Whether every fact of `other` already holds here (so joining changes nothing)."""
        mine = self._map
        for p, t in other._map.items():
            v = mine.get(p)
            if v is None:
                if self.at(p).join(t) != self.at(p) or not self.at(p).is_known:
                    return False
            elif v is not t and v.join(t) != v:
                return False
        return True

    def join(self, other: TypeTree) -> TypeTree:
        """Pointwise join; the result holds every fact of both trees."""
        if not other._map or other is self:
            return self
        if not self._map:
            return other
        return self._memoized(("join", other), lambda: self._compute_join(other))

    def _compute_join(self, other: TypeTree) -> TypeTree:
        if self.includes(other):
            return self
        merged = dict(self._map)
        changed: list[Path] = []
        for p, t in other._map.items():
            old = merged.get(p)
            new = t if old is None else old.join(t)
            if new is not old:
                merged[p] = new
                changed.append(p)
        fast = _join_in_place(merged, changed, self._mask_table())
        return TypeTree._trusted(merged) if fast else TypeTree._internal(merged)

    @classmethod
    def _internal(cls, entries: dict[Path, BaseType]) -> TypeTree:
        """A tree from a restructured normalised tree: valid paths, parents present."""
        return cls._trusted(_finish(entries))

    @classmethod
    def _trusted(cls, entries: dict[Path, BaseType]) -> TypeTree:
        """A tree from an already normalised map (see `_join_in_place`)."""
        tree = cls.__new__(cls)
        tree._map = dict(sorted(entries.items()))
        tree._hash = None
        tree._masks = None
        tree._memo = None
        return tree

    def _memoized(self, key: tuple, compute) -> TypeTree:
        """Trees are immutable, so restructurings of one tree are computed once."""
        memo = self._memo
        if memo is None:
            memo = self._memo = {}
        out = memo.get(key)
        if out is None:
            out = memo[key] = compute()
        return out

    def _mask_table(self) -> dict[int, list[int]]:
        """The -1 patterns of this tree's paths, by path length."""
        if self._masks is None:
            masks: dict[int, set[int]] = {}
            for p in self._map:
                masks.setdefault(len(p), set()).add(_mask(p))
            self._masks = {n: sorted(ms) for n, ms in masks.items()}
        return self._masks

    __or__ = join

    def at(self, path: Path) -> BaseType:
        """What is known at a concrete path: the join of the entries covering it."""
        path = tuple(path)
        out = UNKNOWN
        own = _mask(path)
        for m in self._mask_table().get(len(path), ()):
            if m & own == own:
                t = self._map.get(path if m == own else tuple(-1 if m >> i & 1 else o for i, o in enumerate(path)))
                if t is not None:
                    out = out.join(t)
        return out

    def has_conflict(self) -> bool:
        return any(t.kind is Kind.CONFLICT for t in self._map.values())

    # -- restructuring ----------------------------------------------------------------
    def only(self, offset: int) -> TypeTree:
        """This tree one level down, behind byte `offset` of a new outer value."""
        return TypeTree({(offset, *p): t for p, t in self._map.items()})

    def data0(self) -> TypeTree:
        """The pointee of a pointer value: its entries under offset -1 or 0."""
        return self._memoized(("data0",), self._compute_data0)

    def _compute_data0(self) -> TypeTree:
        sub: dict[Path, BaseType] = {}
        for p, t in self._map.items():
            if len(p) > 1 and p[0] in (-1, 0):
                rest = p[1:]
                sub[rest] = sub[rest].join(t) if rest in sub else t
        return TypeTree._internal(sub)

    def purge_anything(self) -> TypeTree:
        """Without `Anything` entries (they carry no information for a consumer)."""
        return TypeTree({p: t for p, t in self._map.items() if t.kind is not Kind.ANYTHING})

    def first_level(self) -> dict[int, BaseType]:
        """Offset → type of the one-element paths (the value's own bytes)."""
        return {p[0]: t for p, t in self._map.items() if len(p) == 1}

    def _subtree(self, offset: int) -> dict[Path, BaseType]:
        """The deeper entries below first index `offset`, relative to it."""
        return {p[1:]: t for p, t in self._map.items() if len(p) > 1 and p[0] == offset}

    def shift(self, delta: int) -> TypeTree:
        """Memory tree with every concrete first offset moved by `delta`.

        For `q = p + c` (a constant GEP), `q`'s pointee is `p`'s shifted by `-c`
        and `p`'s gains `q`'s shifted by `+c`. Offsets that become negative are
        dropped; `-1` entries stay (every offset stays every offset).
        """
        if delta == 0:
            return self
        return self._memoized(("shift", delta), lambda: self._compute_shift(delta))

    def _compute_shift(self, delta: int) -> TypeTree:
        out: dict[Path, BaseType] = {}
        for p, t in self._map.items():
            if p[0] == -1:
                out[p] = t
            elif 0 <= p[0] + delta < MAX_OFFSET:
                out[(p[0] + delta, *p[1:])] = t
        return TypeTree._internal(out)

    def window(self, offset: int, size: int) -> TypeTree:
        """The memory entries describing bytes `[offset, offset+size)`, re-based to 0.

        A scalar is kept only if it lies wholly inside the window; `-1` entries
        are kept if one element fits.
        """
        return self._memoized(("window", offset, size), lambda: self._compute_window(offset, size))

    def _compute_window(self, offset: int, size: int) -> TypeTree:
        out: dict[Path, BaseType] = {}
        heads = self.first_level()
        for p, t in self._map.items():
            o = p[0]
            head = heads.get(o, t) if len(p) > 1 else t
            if o == -1:
                if head.size <= size:
                    out[p] = t
            elif offset <= o and o + head.size <= offset + size:
                out[(o - offset, *p[1:])] = t
        return TypeTree._internal(out)

    def expand(self, size: int) -> TypeTree:
        """Replace first-level `-1` entries by one entry per element of a value of
        `size` bytes (how a value's bytes are laid down in memory)."""
        return self._memoized(("expand", size), lambda: self._compute_expand(size))

    def _compute_expand(self, size: int) -> TypeTree:
        heads = self.first_level()
        if -1 not in heads:
            return self.window(0, size)
        out: dict[Path, BaseType] = {}
        for p, t in self._map.items():
            if p[0] != -1:
                if p[0] < size:
                    out[p] = t
                continue
            head = heads.get(-1, t)
            step = head.stride
            for o in range(0, size - head.size + 1, step):
                out[(o, *p[1:])] = t
        return TypeTree._internal(out)

    def canonicalize(self, size: int) -> TypeTree:
        """The canonical tree of a value of `size` bytes: if one type with one
        pointee tiles the whole value, a single `-1` entry replaces the copies."""
        return self._memoized(("canonical", size), lambda: self._compute_canonical(size))

    def _compute_canonical(self, size: int) -> TypeTree:
        heads = self.first_level()
        concrete = {o: t for o, t in heads.items() if o != -1}
        if not concrete:
            return self
        types = set(concrete.values())
        if len(types) != 1:
            return self
        t = types.pop()
        if t.kind is Kind.UNKNOWN or size % t.stride or size < t.size:
            return self
        if sorted(concrete) != list(range(0, size, t.stride)):
            return self
        subs = [self._subtree(o) for o in concrete]
        if any(s != subs[0] for s in subs[1:]):
            return self
        out = {p: v for p, v in self._map.items() if p[0] == -1 or p[0] >= size}
        out[(-1,)] = out[(-1,)].join(t) if (-1,) in out else t
        for rest, v in subs[0].items():
            key = (-1, *rest)
            out[key] = out[key].join(v) if key in out else v
        return TypeTree._internal(out)

    def lookup(self, offset: int, size: int) -> TypeTree:
        """The value tree of `size` bytes read at `offset` of this memory tree."""
        return self.window(offset, size).canonicalize(size)

    def tile(self, start: int, period: int, count: int) -> TypeTree:
        """Memory holding `count` copies of this element tree (no `-1` first
        offsets: see `expand`), the first at `start`, one every `period` bytes;
        fewer when the copies would not fit in `MAX_ENTRIES`."""
        return self._memoized(("tile", start, period, count), lambda: self._compute_tile(start, period, count))

    def _compute_tile(self, start: int, period: int, count: int) -> TypeTree:
        count = max(1, min(count, MAX_ENTRIES // max(1, len(self._map)), (MAX_OFFSET - start) // period + 1))
        out: dict[Path, BaseType] = {}
        for k in range(count):
            base = start + k * period
            for p, t in self._map.items():
                if p[0] != -1 and 0 <= base + p[0] < MAX_OFFSET:
                    out[(base + p[0], *p[1:])] = t
        return TypeTree._internal(out)

    def periodic(self, offset: int, period: int) -> TypeTree:
        """Memory seen from `offset` bytes on, assuming it repeats every `period`
        bytes (an array indexed by a variable): entries fold modulo `period`; a
        single scalar tiling the period becomes a `-1` (array) entry."""
        return self._memoized(("periodic", offset, period), lambda: self._compute_periodic(offset, period))

    def _compute_periodic(self, offset: int, period: int) -> TypeTree:
        heads = self.first_level()
        out: dict[Path, BaseType] = {}
        for p, t in self._map.items():
            o = p[0]
            if o == -1:
                out[p] = t
                continue
            head = heads.get(o, t) if len(p) > 1 else t
            r = (o - offset) % period
            if r + head.size <= period:
                key = (r, *p[1:])
                out[key] = out[key].join(t) if key in out else t
        tree = TypeTree._internal(out)
        return tree.canonicalize(period)


EMPTY = TypeTree()


@lru_cache(maxsize=1 << 14)
def _pointer_to(memory: TypeTree) -> TypeTree:
    return TypeTree._internal({(-1,): POINTER, **{(-1, *p): t for p, t in memory._map.items() if len(p) < MAX_DEPTH}})


# -- text form ---------------------------------------------------------------------------

_ENTRY = re.compile(r"\s*\[\s*(-?\d+(?:\s*,\s*-?\d+)*)\s*\]\s*:\s*([A-Za-z]+(?:@[A-Za-z0-9_]+)?)\s*")
_NAMES = {"Unknown": UNKNOWN, "Anything": ANYTHING, "Integer": INTEGER, "Pointer": POINTER, "Conflict": CONFLICT}


def parse_base_type(text: str) -> BaseType:
    """`Integer`, `Pointer`, `Anything`, `Unknown`, `Conflict` or `Float@kind`."""
    if text.startswith("Float@"):
        kind = text[len("Float@"):]
        if kind in FLOAT_KINDS:
            return _FLOATS[kind]
    elif text in _NAMES:
        return _NAMES[text]
    raise ValueError(f"unknown base type {text!r}")


def parse_type_tree(text: str) -> TypeTree:
    """Inverse of `str(tree)`: `{[-1]:Pointer, [-1,0]:Float@double}`."""
    s = text.strip()
    if not (s.startswith("{") and s.endswith("}")):
        raise ValueError(f"type tree must be written in braces: {text!r}")
    body = s[1:-1].strip()
    entries: dict[Path, BaseType] = {}
    if body:
        for item in _split_entries(body, text):
            m = _ENTRY.fullmatch(item)
            if m is None:
                raise ValueError(f"malformed type tree entry {item.strip()!r} in {text!r}")
            path = tuple(int(x) for x in m.group(1).split(","))
            t = parse_base_type(m.group(2))
            entries[path] = entries[path].join(t) if path in entries else t
    return TypeTree(entries)


def _split_entries(body: str, text: str) -> list[str]:
    """Split on the commas between entries (not those inside brackets)."""
    items, depth, start = [], 0, 0
    for i, c in enumerate(body):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced ']' in {text!r}")
        elif c == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    items.append(body[start:])
    return items
