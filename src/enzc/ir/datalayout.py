"""Type sizes, alignments and struct layouts from a module's datalayout string.

The AD engine needs byte sizes for shadow allocations, memcpy lengths and GEP
offsets; these must match what LLVM computes or gradients land in the wrong
bytes. The rules follow LLVM's `DataLayout`: integers without an exact entry take
the alignment of the next larger specified width (else the largest); floats and
vectors without an entry are naturally aligned (power of two ≥ store size);
struct members are aligned unless packed; alloc size is the store size rounded
up to the ABI alignment (so `x86_fp80` stores 10 bytes but allocates 16).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field

from enzc.errors import EnzcError
from enzc.ir.types import (
    ArrayType,
    FloatType,
    FunctionType,
    IntType,
    NamedStructType,
    PointerType,
    StructType,
    TargetExtType,
    Type,
    VectorType,
    X86AMXType,
)

X86_64_DATALAYOUT = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
"""What clang-22 writes for x86_64-linux-gnu; used for modules without a datalayout."""


class DataLayoutError(EnzcError):
    """A datalayout string enzc cannot read, or a type without a size."""


@dataclass(frozen=True)
class _Spec:
    bits: int
    abi: int
    """ABI alignment in bytes."""
    pref: int


@dataclass(frozen=True)
class _PointerSpec:
    bits: int
    abi: int
    pref: int
    index_bits: int


@dataclass(frozen=True)
class StructLayout:
    """Byte offsets of a struct's members, its size (with tail padding) and alignment."""

    offsets: tuple[int, ...]
    size: int
    align: int

    def member_at(self, offset: int) -> int:
        """Index of the member whose storage starts at or before byte `offset`."""
        return max(bisect_left(self.offsets, offset + 1) - 1, 0)


@dataclass
class DataLayout:
    """A parsed datalayout string; `DataLayout.parse(s)` or `for_module(m)`."""

    text: str = ""
    little_endian: bool = True
    stack_align: int = 0
    """Natural stack alignment in bytes (0: unspecified)."""
    native_int_widths: tuple[int, ...] = ()
    mangling: str | None = None
    ints: list[_Spec] = field(default_factory=list)
    floats: list[_Spec] = field(default_factory=list)
    vectors: list[_Spec] = field(default_factory=list)
    aggregate_abi: int = 1
    aggregate_pref: int = 8
    pointers: dict[int, _PointerSpec] = field(default_factory=dict)
    alloca_addrspace: int = 0
    program_addrspace: int = 0
    globals_addrspace: int = 0
    _struct_cache: dict = field(default_factory=dict, repr=False)

    # -- parsing -----------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> DataLayout:
        """Read an LLVM datalayout string; unknown-but-harmless specs are ignored."""
        dl = cls(text=text)
        dl.ints = [_Spec(1, 1, 1), _Spec(8, 1, 1), _Spec(16, 2, 2), _Spec(32, 4, 4), _Spec(64, 4, 8)]
        dl.floats = [_Spec(16, 2, 2), _Spec(32, 4, 4), _Spec(64, 8, 8), _Spec(128, 16, 16)]
        dl.vectors = [_Spec(64, 8, 8), _Spec(128, 16, 16)]
        dl.pointers = {0: _PointerSpec(64, 8, 8, 64)}
        for spec in filter(None, text.split("-")):
            try:
                dl._apply(spec)
            except (ValueError, IndexError) as err:
                raise DataLayoutError(f"malformed datalayout spec '{spec}' in \"{text}\": {err}") from None
        return dl

    def _apply(self, spec: str) -> None:
        if spec.startswith("ni:"):
            return  # non-integral address spaces: no effect on sizes
        head, parts = spec[0], spec[1:].split(":")
        match head:
            case "e" | "E":
                if len(spec) != 1:
                    raise ValueError("malformed specification, must be just 'e' or 'E'")  # ll:5700764
                self.little_endian = head == "e"
            case "S":
                self.stack_align = int(parts[0]) // 8
            case "n":
                self.native_int_widths = tuple(int(p) for p in parts)
            case "m":
                self.mangling = parts[1]
            case "A":
                self.alloca_addrspace = int(parts[0])
            case "P":
                self.program_addrspace = int(parts[0])
            case "G":
                self.globals_addrspace = int(parts[0])
            case "i" | "f" | "v":
                bits = _size(parts[0])
                abi, pref = _align_pair(parts[1:])
                table = {"i": self.ints, "f": self.floats, "v": self.vectors}[head]
                _upsert(table, _Spec(bits, abi, pref))
            case "a":
                self.aggregate_abi, self.aggregate_pref = _align_pair(parts[1:] if parts[0] == "" else parts)
                self.aggregate_abi = max(self.aggregate_abi, 1)
            case "p":
                addrspace_text = parts[0].lstrip("abcdefghijklmnopqrstuvwxyz")
                addrspace = int(addrspace_text) if addrspace_text else 0
                bits = _size(parts[1])
                abi, pref = _align_pair(parts[2:4])
                index_bits = int(parts[4]) if len(parts) > 4 else bits
                self.pointers[addrspace] = _PointerSpec(bits, abi, pref, index_bits)
            case "F" | "s":
                pass  # function pointer alignment, the old stack spec: no effect on sizes
            case _:
                raise ValueError(f"unknown specifier '{head}'")  # ll:5207612

    # -- scalars -----------------------------------------------------------------------
    def pointer_spec(self, addrspace: int = 0) -> _PointerSpec:
        return self.pointers.get(addrspace) or self.pointers[0]

    def pointer_size(self, addrspace: int = 0) -> int:
        """Pointer size in bytes."""
        return self.pointer_spec(addrspace).bits // 8

    def index_size(self, addrspace: int = 0) -> int:
        """Width in bytes of GEP index arithmetic."""
        return self.pointer_spec(addrspace).index_bits // 8

    def int_ptr_type(self, addrspace: int = 0) -> IntType:
        """The integer type as wide as a pointer (`i64` on x86-64)."""
        return IntType(self.pointer_spec(addrspace).bits)

    # -- sizes -------------------------------------------------------------------------
    def size_in_bits(self, t: Type) -> int:
        """LLVM's getTypeSizeInBits: 80 for x86_fp80, 1 for i1, padded size for structs."""
        match t:
            case IntType(bits=b):
                return b
            case FloatType():
                return t.bits
            case PointerType(addrspace=a):
                return self.pointer_spec(a).bits
            case VectorType(count=n, element=e):
                return n * self.size_in_bits(e)
            case ArrayType(count=n, element=e):
                return n * self.alloc_size_of(e) * 8
            case StructType() | NamedStructType():
                return self.struct_layout(t).size * 8
            case X86AMXType():
                return 8192
        raise DataLayoutError(f"type {t} has no size")

    def size_of(self, t: Type) -> int:
        """Store size in bytes: how many bytes a load or store of `t` touches."""
        return (self.size_in_bits(t) + 7) // 8

    def alloc_size_of(self, t: Type) -> int:
        """Bytes between consecutive elements of an array of `t` (store size + padding)."""
        return _align_to(self.size_of(t), self.abi_align(t))

    # -- alignment ---------------------------------------------------------------------
    def abi_align(self, t: Type) -> int:
        """ABI alignment in bytes."""
        return self._align(t, abi=True)

    def pref_align(self, t: Type) -> int:
        """Preferred alignment in bytes."""
        return self._align(t, abi=False)

    def _align(self, t: Type, abi: bool) -> int:
        match t:
            case IntType(bits=b):
                specs = self.ints
                i = bisect_left([s.bits for s in specs], b)
                spec = specs[i] if i < len(specs) else specs[-1]
                return spec.abi if abi else spec.pref
            case FloatType():
                spec = _exact(self.floats, t.bits)
                if spec is not None:
                    return spec.abi if abi else spec.pref
                return _power_of_two_ceil(t.bits // 8)
            case PointerType(addrspace=a):
                ps = self.pointer_spec(a)
                return ps.abi if abi else ps.pref
            case VectorType():
                bits = self.size_in_bits(t)
                spec = _exact(self.vectors, bits)
                if spec is not None:
                    return spec.abi if abi else spec.pref
                return _power_of_two_ceil(self.size_of(t))
            case ArrayType(element=e):
                return self._align(e, abi)
            case StructType(packed=packed) | NamedStructType(packed=packed):
                if packed and abi:
                    return 1
                base = self.aggregate_abi if abi else self.aggregate_pref
                return max(base, self.struct_layout(t).align)
            case X86AMXType():
                return 64
            case FunctionType() | TargetExtType():
                pass
        raise DataLayoutError(f"type {t} has no alignment")

    # -- aggregates --------------------------------------------------------------------
    def struct_layout(self, t: Type) -> StructLayout:
        """Member offsets, size and alignment of a literal or identified struct."""
        if isinstance(t, NamedStructType):
            if t.elements is None:
                raise DataLayoutError(f"opaque struct {t} has no layout")
            key: object = (t.name, id(t), t.elements, t.packed)
            elements, packed = t.elements, t.packed
        elif isinstance(t, StructType):
            key, elements, packed = t, t.elements, t.packed
        else:
            raise DataLayoutError(f"{t} is not a struct type")
        cached = self._struct_cache.get(key)
        if cached is not None:
            return cached
        offset, align, offsets = 0, 1, []
        for e in elements:
            ea = 1 if packed else self.abi_align(e)
            offset = _align_to(offset, ea)
            offsets.append(offset)
            offset += self.alloc_size_of(e)
            align = max(align, ea)
        layout = StructLayout(tuple(offsets), _align_to(offset, align), align)
        self._struct_cache[key] = layout
        return layout

    def element_offset(self, t: Type, index: int) -> int:
        """Byte offset of member `index` of struct type `t`."""
        return self.struct_layout(t).offsets[index]

    def gep_offset(self, source_type: Type, indices: list[int]) -> int:
        """Byte offset computed by `getelementptr source_type, ptr, indices...` with
        constant indices: the first scales by the alloc size of `source_type`, the
        rest step into structs (member offsets) or arrays/vectors (element size)."""
        if not indices:
            return 0
        offset = indices[0] * self.alloc_size_of(source_type)
        t = source_type
        for i in indices[1:]:
            match t:
                case StructType() | NamedStructType():
                    offset += self.struct_layout(t).offsets[i]
                    t = (t.elements or ())[i]  # type: ignore[union-attr]
                case ArrayType(element=e) | VectorType(element=e):
                    offset += i * self.alloc_size_of(e)
                    t = e
                case _:
                    raise DataLayoutError(f"getelementptr cannot step into {t}")
        return offset


def for_module(module) -> DataLayout:
    """The layout of `module` (x86-64's when the module has none), cached on the string."""
    text = module.datalayout if module.datalayout is not None else X86_64_DATALAYOUT
    dl = _LAYOUTS.get(text)
    if dl is None:
        dl = _LAYOUTS[text] = DataLayout.parse(text)
    return dl


_LAYOUTS: dict[str, DataLayout] = {}


def _size(text: str) -> int:
    """A size in bits, as LLVM takes it: a non-zero 24-bit integer."""
    bits = int(text)
    if not 0 < bits < 1 << 24:
        raise ValueError("size must be a non-zero 24-bit integer")
    return bits


def _align_pair(parts: list[str]) -> tuple[int, int]:
    """ABI and preferred alignment in bytes from `abi[:pref]` bit counts."""
    abi = int(parts[0]) // 8 if parts and parts[0] else 0
    pref = int(parts[1]) // 8 if len(parts) > 1 and parts[1] else abi
    if abi and abi & (abi - 1):
        raise ValueError(f"alignment {abi * 8} is not a power of two")
    return abi, pref


def _upsert(table: list[_Spec], spec: _Spec) -> None:
    """Insert or replace the entry for `spec.bits`, keeping the table sorted."""
    for k, s in enumerate(table):
        if s.bits == spec.bits:
            table[k] = spec
            return
    table.append(spec)
    table.sort(key=lambda s: s.bits)


def _exact(table: list[_Spec], bits: int) -> _Spec | None:
    return next((s for s in table if s.bits == bits), None)


def _align_to(n: int, align: int) -> int:
    return (n + align - 1) // align * align if align > 1 else n


def _power_of_two_ceil(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p
