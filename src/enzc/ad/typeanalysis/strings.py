"""libstdc++'s `std::string` (C++11 ABI): where string objects are in a function,
and what their character buffers hold.

A `std::__cxx11::basic_string<char>` is `{char *_M_p; size_t length; union {char
_M_local_buf[16]; size_t capacity;}}`: `_M_p` points either to the object's own
16-byte buffer (at most 15 characters and the terminating zero) or to a block
from `_M_create` (`operator new`, in libstdc++.so). One pointer variable, the
`_M_p` slot, thus holds two kinds of object, and flow-insensitive type analysis
merges them: the heap block's characters reach the local buffer's bytes 16 on,
which in a map node are the node's `double`.

The ABI settles the merge: the buffer is a union, holding the characters while
the string is short and the heap block's capacity (an integer) in its first 8
bytes while it is long. A flow-insensitive fact about those bytes is true only at
some times (the capacity's integer is no fact about characters that carry a
double's bytes, which once typed such a double as an integer and dropped its
derivative), so a pointer to the buffer keeps no facts about what it points to
(`untyped_pointee`), and a copy into or out of the buffer moves at most its 16
bytes (`buffer_extent`, used by `copy_bound`: libstdc++ moves to the heap beyond
15 characters; going past a member array is undefined). Those bytes are typed by
the other side of a copy, or are unknown: a located error where they may carry a
derivative (`analysis.inactive_memory` proves where they do not).

String objects are found from the function's own evidence: `this` of a call to a
(non-static) member of the class, `this` of a function that is one, a `!tbaa`
access whose base type is the string or a struct holding one (`std::pair<const
std::string, double>` in a map node), and locals declared as one.
"""

from __future__ import annotations

import re

from enzc.ir.instructions import Alloca, CallBase, Cast, GetElementPtr, Instruction, Load, Store
from enzc.ir.metadata import Metadata
from enzc.ir.module import Function
from enzc.ir.types import ArrayType, NamedStructType, StructType, Type
from enzc.ir.values import Value

from enzc.ad.typeanalysis.offsets import TypeSeeds, gep_offset
from enzc.ad.typeanalysis.tbaa import TBAAReader
from enzc.ad.typeanalysis.typetree import TypeTree

_CLASS = "NSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE"
MEMBER_PREFIXES = ("_Z" + _CLASS, "_ZNK" + _CLASS[1:])
"""Mangled names of members of `std::__cxx11::basic_string<char>` (const ones with `K`)."""
M_CREATE = "_Z" + _CLASS + "9_M_createERmm"
"""`_M_create(size_t &capacity, size_t old)`: a heap block for `capacity + 1` characters."""
TBAA_NAME = "_ZTS" + _CLASS + "E"
STRUCT_NAME = re.compile(r"class\.std::__cxx11::basic_string(\.\d+)?")

LOCAL_BUFFER = 16
"""Offset of `_M_local_buf` in the object."""
LOCAL_CAPACITY = 16
"""Bytes of `_M_local_buf`."""
_MAX_DEPTH = 6
_MAX_ELEMENTS = 64
"""Strings of a local array that are anchored one by one."""
_MEMBER = re.compile(r"(C[123]|D[012])|([a-z][a-zA-Z]E)|(\d+)")

def is_member(name: str) -> bool:
    """Whether `name` is a non-static member function of the class (its first
    argument is `this`): constructors, destructors, operators and methods, not the
    `_S_` helpers nor members of nested classes (`_Alloc_hider`)."""
    prefix = next((p for p in MEMBER_PREFIXES if name.startswith(p)), None)
    if prefix is None:
        return False
    rest = name[len(prefix):]
    m = _MEMBER.match(rest)
    if m is None:
        return False
    if m.group(3) is None:
        return True  # constructor, destructor or operator
    n = int(m.group(3))
    ident = rest[m.end():m.end() + n]
    follow = rest[m.end() + n:m.end() + n + 1]
    return len(ident) == n and not ident.startswith("_S_") and follow in ("E", "I")


class StringObjects:
    """The string objects of one function, as `(base value, byte offset)` pairs."""

    def __init__(self, fn: Function, seeds: TypeSeeds, tbaa: TBAAReader) -> None:
        self.seeds = seeds
        self.tbaa = tbaa
        self._memo: dict[Value, int] = {}
        self._tbaa_members: dict[int, tuple[int, ...]] = {}
        self.objects: set[tuple[Value, int]] = set()
        if is_member(fn.name or "") and fn.args:
            self.objects.add((fn.args[0], 0))
        for inst in fn.instructions():
            self._collect(inst)
        self._extents: dict[Value, int | None] = {}

    def _collect(self, inst: Instruction) -> None:
        if isinstance(inst, CallBase):
            callee = inst.called_function
            if callee is not None and is_member(callee.name or "") and inst.args:
                self._add(inst.args[0], 0)
        elif isinstance(inst, Alloca):
            for off in self._struct_members(inst.allocated_type, 0):
                self.objects.add((inst, off))
        tag = inst.metadata.get("tbaa")
        ptr = _accessed_pointer(inst)
        if tag is not None and ptr is not None:
            ops = self.tbaa.operands(tag)
            offset = self.tbaa.integer(ops[2]) if len(ops) >= 3 else None
            if offset is not None:
                for member in self._tbaa_strings(ops[0], 0):
                    self._add(ptr, member - offset)

    def _add(self, ptr: Value, delta: int) -> None:
        base, off = self.base_offset(ptr)
        self.objects.add((base, off + delta))

    def base_offset(self, v: Value) -> tuple[Value, int]:
        """`(base, c)` with `v == base + c` through constant GEPs and pointer casts."""
        total = 0
        for _ in range(16):
            match v:
                case GetElementPtr():
                    off = gep_offset(v, self.seeds, self._memo)
                    if off is None or off[1] != 0:
                        break
                    total += off[0]
                    v = v.ptr
                case Cast(opcode="bitcast" | "addrspacecast"):
                    v = v.operand(0)
                case _:
                    break
        return v, total

    def buffer_extent(self, v: Value) -> int | None:
        """Bytes from `v` to the end of the local buffer of a string object it points
        into (None: not into one)."""
        if not self.objects:
            return None
        if v not in self._extents:
            base, off = self.base_offset(v)
            inside = [LOCAL_BUFFER + LOCAL_CAPACITY - (off - o) for b, o in self.objects
                      if b is base and LOCAL_BUFFER <= off - o < LOCAL_BUFFER + LOCAL_CAPACITY]
            self._extents[v] = min(inside) if inside else None
        return self._extents[v]

    def _struct_members(self, t: Type, depth: int) -> list[int]:
        """Offsets of string objects inside a value of IR type `t` (clang's declared types)."""
        if depth > _MAX_DEPTH:
            return []
        if isinstance(t, ArrayType):
            inner = self._struct_members(t.element, depth + 1)
            stride = self.seeds.alloc_size(t.element) or 0
            return [i * stride + o for i in range(min(t.count, _MAX_ELEMENTS)) for o in inner] if stride else []
        if not isinstance(t, (StructType, NamedStructType)) or t.elements is None:
            return []
        if isinstance(t, NamedStructType) and STRUCT_NAME.fullmatch(t.name):
            return [0]
        try:
            offsets = self.seeds.layout.struct_layout(t).offsets
        except Exception:  # noqa: BLE001 - unsized or opaque member: nothing known
            return []
        return [o + inner for o, e in zip(offsets, t.elements) for inner in self._struct_members(e, depth + 1)]

    def _tbaa_strings(self, node: Metadata | None, depth: int) -> tuple[int, ...]:
        """Offsets of string objects inside an object of the TBAA type `node`."""
        resolved = self.tbaa.resolve(node)
        if resolved is None or depth > _MAX_DEPTH:
            return ()
        key = id(resolved)
        if key in self._tbaa_members:
            return self._tbaa_members[key]
        self._tbaa_members[key] = ()
        info = self.tbaa.type_node(resolved)
        found: tuple[int, ...] = ()
        if info is not None and info.name == TBAA_NAME:
            found = (0,)
        elif info is not None:
            found = tuple(off + inner for member, off, _ in info.members if off is not None
                          for inner in self._tbaa_strings(member, depth + 1))
        self._tbaa_members[key] = found
        return found


def _accessed_pointer(inst: Instruction) -> Value | None:
    if isinstance(inst, (Load, Store)):
        return inst.ptr
    return None


def untyped_pointee(tree: TypeTree) -> TypeTree:
    """A pointer's tree without facts about what it points to: the bytes of a
    string's own buffer are its characters while the string is short, and the
    first 8 of them its heap block's capacity while it is long (a union); a
    flow-insensitive fact about them (the capacity's integer) says nothing of what
    the characters hold at another time (a double's bytes)."""
    kept = TypeTree({p: t for p, t in tree.items() if not (len(p) > 1 and p[0] in (-1, 0))})
    return tree if len(kept) == len(tree) else kept
