"""Values, use lists and constants.

Every `Value` knows its uses (one `Use` per operand slot of a `User`), which makes
`replace_all_uses_with` and "has one use" cheap, as transforms need. Only users
that live in function bodies (instructions and debug records) register uses;
references from constant expressions and global initializers are not tracked.
"""

from __future__ import annotations

import math
import struct
from typing import TYPE_CHECKING, Iterator

from enzc.ir.names import escape_bytes, global_ref, local_ref
from enzc.ir.types import (
    ArrayType,
    FloatType,
    IntType,
    StructType,
    NamedStructType,
    Type,
    VectorType,
)

if TYPE_CHECKING:
    from enzc.ir.metadata import Metadata


class Use:
    """Operand slot `index` of `user`; identity-hashed so use sets are cheap."""

    __slots__ = ("user", "index")

    def __init__(self, user: User, index: int) -> None:
        self.user = user
        self.index = index


class Value:
    """Anything usable as an operand. `name` is None for unnamed (numbered) values."""

    def __init__(self, type: Type, name: str | None = None) -> None:
        self.type = type
        self.name = name
        self.uses: dict[Use, None] = {}
        """Insertion-ordered set of the uses of this value."""

    @property
    def users(self) -> list[User]:
        """Distinct users, in the order their first use was added."""
        return list(dict.fromkeys(u.user for u in self.uses))

    @property
    def num_uses(self) -> int:
        return len(self.uses)

    def replace_all_uses_with(self, new: Value) -> None:
        """Point every use of this value at `new`."""
        if new is self:
            return
        for use in list(self.uses):
            use.user.set_operand(use.index, new)

    def ref(self) -> str:
        """How an operand referring to this value is spelled (without its type)."""
        raise NotImplementedError(type(self).__name__)

    def typed_ref(self) -> str:
        return f"{self.type} {self.ref()}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.type} {self.ref() if self.name is not None else '?'}>"


class LocalValue(Value):
    """A value named with `%` inside a function (argument, instruction, block)."""

    def ref(self) -> str:
        if self.name is None:
            raise ValueError("unnamed local value has no spelling before numbering")
        return local_ref(self.name)


class User(Value):
    """A value with operands whose uses are tracked."""

    def __init__(self, type: Type, operands: list[Value] = (), name: str | None = None) -> None:  # type: ignore[assignment]
        super().__init__(type, name)
        self._operands: list[Value] = []
        self._operand_uses: list[Use] = []
        for op in operands:
            self.append_operand(op)

    @property
    def operands(self) -> tuple[Value, ...]:
        return tuple(self._operands)

    def operand(self, index: int) -> Value:
        return self._operands[index]

    def set_operand(self, index: int, value: Value) -> None:
        use = self._operand_uses[index]
        del self._operands[index].uses[use]
        self._operands[index] = value
        value.uses[use] = None

    def append_operand(self, value: Value) -> None:
        use = Use(self, len(self._operands))
        self._operands.append(value)
        self._operand_uses.append(use)
        value.uses[use] = None

    def set_operands(self, values: list[Value]) -> None:
        """Replace the whole operand list (e.g. when a phi loses an incoming edge)."""
        self.drop_operands()
        for v in values:
            self.append_operand(v)

    def drop_operands(self) -> None:
        """Unregister every use this user holds (before erasing it)."""
        for op, use in zip(self._operands, self._operand_uses):
            op.uses.pop(use, None)
        self._operands = []
        self._operand_uses = []


class Argument(LocalValue):
    """A formal parameter of a function."""

    def __init__(self, type: Type, name: str | None, index: int, attrs: tuple[str, ...] = ()) -> None:
        super().__init__(type, name)
        self.index = index
        self.attrs = attrs
        """Parameter attributes, each one attribute's canonical text (`noundef`, `align 8`)."""
        self.parent = None  # set by Function


# ---------------------------------------------------------------------------
# Constants


class Constant(Value):
    """A value known at compile time; spelled inline where it is used."""


class ConstantInt(Constant):
    def __init__(self, type: IntType, value: int) -> None:
        super().__init__(type)
        bits = type.bits
        value &= (1 << bits) - 1
        if value >> (bits - 1):
            value -= 1 << bits
        self.value = value
        """Signed interpretation of the bits."""

    @property
    def unsigned(self) -> int:
        return self.value & ((1 << self.type.bits) - 1)  # type: ignore[attr-defined]

    def ref(self) -> str:
        if self.type.bits == 1:  # type: ignore[attr-defined]
            return "true" if self.value else "false"
        return str(self.value)


_HEX_PREFIX = {"half": "0xH", "bfloat": "0xR", "x86_fp80": "0xK", "fp128": "0xL", "ppc_fp128": "0xM"}


class ConstantFP(Constant):
    """A floating constant. `text` keeps the parsed spelling so printing is exact."""

    def __init__(self, type: FloatType, value: float, text: str | None = None) -> None:
        super().__init__(type)
        self.value = value
        self.text = text

    def ref(self) -> str:
        if self.text is not None:
            return self.text
        kind = self.type.kind  # type: ignore[attr-defined]
        if kind in ("float", "double"):
            # LLVM spells float constants as the double with the same value.
            return "0x%016X" % struct.unpack("<Q", struct.pack("<d", self.value))[0]
        if kind == "half":
            return "0xH%04X" % struct.unpack("<H", struct.pack("<e", self.value))[0]
        if kind == "bfloat":  # the top half of the float (truncated)
            single = self.value if abs(self.value) <= 3.4e38 or math.isnan(self.value) \
                else math.copysign(math.inf, self.value)
            return "0xR%04X" % (struct.unpack("<I", struct.pack("<f", single))[0] >> 16)
        if kind == "x86_fp80":
            return "0xK%020X" % _extended_bits(self.value, explicit_one=True, fraction_bits=64)
        if kind == "fp128":
            bits = _extended_bits(self.value, explicit_one=False, fraction_bits=112)
            return "0xL%016X%016X" % (bits & ((1 << 64) - 1), bits >> 64)  # LLVM: low word first
        raise ValueError(f"cannot spell a new {kind} constant")


def _extended_bits(value: float, explicit_one: bool, fraction_bits: int) -> int:
    """The bits of a Python float in a format with a 15-bit exponent (x87's 80-bit
    extended, with its explicit integer bit, or IEEE quad): exact, as both are wider."""
    sign = 1 if math.copysign(1.0, value) < 0 else 0
    top = sign << (15 + fraction_bits)
    if math.isinf(value) or math.isnan(value):
        quiet = 1 << (fraction_bits - 1 - (1 if explicit_one else 0)) if math.isnan(value) else 0
        one = 1 << (fraction_bits - 1) if explicit_one else 0
        return top | (0x7FFF << fraction_bits) | one | quiet
    if value == 0:
        return top
    m, e = math.frexp(abs(value))  # value = m * 2**e, 0.5 <= m < 1
    if explicit_one:
        fraction = int(m * 2.0 ** 53) << (fraction_bits - 53)  # the integer bit is bit 63
    else:
        fraction = (int(m * 2.0 ** 53) << (fraction_bits + 1 - 53)) - (1 << fraction_bits)
    return top | ((e - 1 + 16383) << fraction_bits) | fraction


class ConstantSimple(Constant):
    """`null`, `none`, `undef`, `poison`, `zeroinitializer`: a keyword of a type."""

    def __init__(self, type: Type, keyword: str) -> None:
        super().__init__(type)
        self.keyword = keyword

    def ref(self) -> str:
        return self.keyword


def null(type: Type) -> ConstantSimple:
    return ConstantSimple(type, "null")


def undef(type: Type) -> ConstantSimple:
    return ConstantSimple(type, "undef")


def poison(type: Type) -> ConstantSimple:
    return ConstantSimple(type, "poison")


def zeroinitializer(type: Type) -> ConstantSimple:
    return ConstantSimple(type, "zeroinitializer")


class ConstantAggregate(Constant):
    """A struct `{ T a, ... }`, array `[T a, ...]` or vector `<T a, ...>` constant."""

    def __init__(self, type: Type, elements: list[Value]) -> None:
        super().__init__(type)
        self.elements = elements

    def ref(self) -> str:
        inner = ", ".join(e.typed_ref() for e in self.elements)
        match self.type:
            case ArrayType():
                return f"[{inner}]"
            case VectorType():
                return f"<{inner}>"
            case StructType(packed=True) | NamedStructType(packed=True):
                return f"<{{ {inner} }}>"
            case _:
                return f"{{ {inner} }}" if inner else "{}"


class ConstantString(Constant):
    """`c"..."`: an array of i8 given as bytes."""

    def __init__(self, type: ArrayType, data: bytes) -> None:
        super().__init__(type)
        self.data = data

    def ref(self) -> str:
        return 'c"' + escape_bytes(self.data) + '"'


class ConstantSplat(Constant):
    """`splat (T v)`: a vector with every lane equal to `element`."""

    def __init__(self, type: VectorType, element: Value) -> None:
        super().__init__(type)
        self.element = element

    def ref(self) -> str:
        return f"splat ({self.element.typed_ref()})"


class ConstantExpr(Constant):
    """A constant expression such as `getelementptr inbounds (i8, ptr @g, i64 4)`.

    `spelling` holds the whole expression text after the type (the parser canonicalises
    it); `operands` lists the constants it refers to, for analyses that need them
    (e.g. the global a GEP expression points into). `opcode` is its first keyword.
    """

    def __init__(self, type: Type, opcode: str, operands: list[Value], spelling: str,
                 source_type: Type | None = None) -> None:
        super().__init__(type)
        self.opcode = opcode
        self.operands = operands
        self.spelling = spelling
        self.source_type = source_type
        """A `getelementptr`'s source element type (None when not known)."""

    def ref(self) -> str:
        return self.spelling


class RawConstant(Constant):
    """A constant kept as its text (blockaddress, dso_local_equivalent, no_cfi, ...)."""

    def __init__(self, type: Type, spelling: str) -> None:
        super().__init__(type)
        self.spelling = spelling

    def ref(self) -> str:
        return self.spelling


class InlineAsm(Value):
    """The callee of a call to inline assembly."""

    def __init__(self, type: Type, spelling: str) -> None:
        super().__init__(type)
        self.spelling = spelling
        """`asm sideeffect "..." "=r,r"` as written."""

    def ref(self) -> str:
        return self.spelling


class MetadataOperand(Value):
    """A `metadata ...` operand of a call (e.g. `metadata !"enzyme_dup"`, `metadata ptr %x`)."""

    def __init__(self, type: Type, md: Metadata) -> None:
        super().__init__(type)
        self.md = md

    def ref(self) -> str:
        return str(self.md)


class GlobalValue(Constant):
    """A module-level named entity usable as a pointer constant (`@name`)."""

    def ref(self) -> str:
        if self.name is None:
            raise ValueError("unnamed global value has no spelling before numbering")
        return global_ref(self.name)


def const_int(type: IntType, value: int) -> ConstantInt:
    return ConstantInt(type, value)


def const_fp(type: Type, value: float) -> Constant:
    """A floating constant of a scalar type, or a splat of it for a vector type."""
    if isinstance(type, VectorType):
        return ConstantSplat(type, ConstantFP(type.element, value))  # type: ignore[arg-type]
    return ConstantFP(type, value)  # type: ignore[arg-type]


def iter_constant_operands(c: Value) -> Iterator[Value]:
    """Direct sub-constants of a constant (aggregate elements, expression operands)."""
    match c:
        case ConstantAggregate():
            yield from c.elements
        case ConstantExpr():
            yield from c.operands
        case ConstantSplat():
            yield c.element
