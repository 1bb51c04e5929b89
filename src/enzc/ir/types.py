"""LLVM types as immutable, hashable values.

Structural types compare by structure, so two `IntType(32)` are equal and can be used
as dict keys; identified (named) struct types compare by name and carry a mutable
body, because LLVM lets a named struct be declared opaque and defined later (and
be recursive through pointers).
"""

from __future__ import annotations

from dataclasses import dataclass


class Type:
    """Base of all IR types; `str(t)` is the LLVM spelling."""

    @property
    def is_float(self) -> bool:
        return isinstance(self, FloatType)

    @property
    def is_int(self) -> bool:
        return isinstance(self, IntType)

    @property
    def is_pointer(self) -> bool:
        return isinstance(self, PointerType)

    @property
    def scalar(self) -> Type:
        """The element type of a vector, else the type itself."""
        return self.element if isinstance(self, VectorType) else self

    @property
    def is_fp_or_fp_vector(self) -> bool:
        return isinstance(self.scalar, FloatType)

    @property
    def is_first_class(self) -> bool:
        return not isinstance(self, (VoidType, FunctionType, LabelType, MetadataType))


@dataclass(frozen=True)
class VoidType(Type):
    def __str__(self) -> str:
        return "void"


@dataclass(frozen=True)
class LabelType(Type):
    def __str__(self) -> str:
        return "label"


@dataclass(frozen=True)
class MetadataType(Type):
    def __str__(self) -> str:
        return "metadata"


@dataclass(frozen=True)
class TokenType(Type):
    def __str__(self) -> str:
        return "token"


@dataclass(frozen=True)
class X86AMXType(Type):
    def __str__(self) -> str:
        return "x86_amx"


@dataclass(frozen=True)
class IntType(Type):
    bits: int
    """Bit width, 1 to 2**23."""

    def __str__(self) -> str:
        return f"i{self.bits}"


FLOAT_KINDS: dict[str, int] = {
    "half": 16,
    "bfloat": 16,
    "float": 32,
    "double": 64,
    "x86_fp80": 80,
    "fp128": 128,
    "ppc_fp128": 128,
}
"""Floating kinds and their bit widths."""


@dataclass(frozen=True)
class FloatType(Type):
    kind: str
    """One of FLOAT_KINDS."""

    def __str__(self) -> str:
        return self.kind

    @property
    def bits(self) -> int:
        return FLOAT_KINDS[self.kind]


@dataclass(frozen=True)
class PointerType(Type):
    addrspace: int = 0
    """Address space; 0 is the default and prints as plain `ptr`."""

    def __str__(self) -> str:
        return "ptr" if self.addrspace == 0 else f"ptr addrspace({self.addrspace})"


@dataclass(frozen=True)
class VectorType(Type):
    count: int
    element: Type
    scalable: bool = False
    """`<vscale x N x T>` when true."""

    def __str__(self) -> str:
        prefix = "vscale x " if self.scalable else ""
        return f"<{prefix}{self.count} x {self.element}>"


@dataclass(frozen=True)
class ArrayType(Type):
    count: int
    element: Type

    def __str__(self) -> str:
        return f"[{self.count} x {self.element}]"


@dataclass(frozen=True)
class StructType(Type):
    """A literal (unnamed) struct type `{ i32, ptr }` or packed `<{ ... }>`."""

    elements: tuple[Type, ...]
    packed: bool = False

    def __str__(self) -> str:
        body = "{ " + ", ".join(map(str, self.elements)) + " }" if self.elements else "{}"
        return f"<{body}>" if self.packed else body


@dataclass(eq=False)
class NamedStructType(Type):
    """An identified struct `%struct.S = type { ... }`; opaque while `elements` is None.

    Equality is identity; a module keeps one object per name, so names are unique.
    """

    name: str
    """Name without the leading `%` (may need quoting when printed)."""
    elements: tuple[Type, ...] | None = None
    """Body; None for an opaque struct."""
    packed: bool = False

    def __hash__(self) -> int:
        return hash(self.name)

    def __str__(self) -> str:
        from enzc.ir.names import local_ref  # late: names imports nothing from here

        return local_ref(self.name)

    @property
    def is_opaque(self) -> bool:
        return self.elements is None

    def body_str(self) -> str:
        """The right-hand side of the type definition."""
        if self.elements is None:
            return "opaque"
        return str(StructType(self.elements, self.packed))


@dataclass(frozen=True)
class FunctionType(Type):
    ret: Type
    params: tuple[Type, ...]
    vararg: bool = False

    def __str__(self) -> str:
        params = [str(p) for p in self.params]
        if self.vararg:
            params.append("...")
        return f"{self.ret} ({', '.join(params)})"


@dataclass(frozen=True)
class TargetExtType(Type):
    """`target("name", types..., ints...)`."""

    name: str
    type_params: tuple[Type, ...] = ()
    int_params: tuple[int, ...] = ()

    def __str__(self) -> str:
        parts = [f'"{self.name}"'] + [str(t) for t in self.type_params] + [str(i) for i in self.int_params]
        return f"target({', '.join(parts)})"


AggregateType = StructType | NamedStructType | ArrayType

VOID = VoidType()
LABEL = LabelType()
METADATA = MetadataType()
TOKEN = TokenType()
PTR = PointerType()
I1 = IntType(1)
I8 = IntType(8)
I16 = IntType(16)
I32 = IntType(32)
I64 = IntType(64)
HALF = FloatType("half")
FLOAT = FloatType("float")
DOUBLE = FloatType("double")


def struct_elements(t: Type) -> tuple[Type, ...]:
    """Element types of a literal or identified struct (error if opaque)."""
    if isinstance(t, StructType):
        return t.elements
    if isinstance(t, NamedStructType):
        if t.elements is None:
            raise ValueError(f"opaque struct {t} has no elements")
        return t.elements
    raise TypeError(f"{t} is not a struct type")


def aggregate_member(t: Type, index: int) -> Type:
    """The type at `index` inside a struct, array or vector (extractvalue/GEP step)."""
    match t:
        case StructType() | NamedStructType():
            return struct_elements(t)[index]
        case ArrayType(element=e) | VectorType(element=e):
            return e
    raise TypeError(f"cannot index into {t}")


def has_packed_struct(t: Type) -> bool:
    """Whether a packed struct lies inside `t` (its fields may sit at any offset)."""
    match t:
        case StructType(packed=True) | NamedStructType(packed=True):
            return True
        case StructType(elements=els):
            return any(has_packed_struct(e) for e in els)
        case NamedStructType() if t.elements is not None:
            return any(has_packed_struct(e) for e in t.elements)
        case ArrayType(element=e):
            return has_packed_struct(e)
    return False
