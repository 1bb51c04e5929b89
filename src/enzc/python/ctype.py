"""The C types `enzc.load` can pass between Python and C, and how each is spelled.

A parameter is a scalar passed by value (a Python number), a pointer to scalars or
to a struct made of one scalar type (a C-contiguous array of that dtype), or
something enzc cannot pass (`Unsupported`, with the reason shown to the user).
Scalars are declared in generated C with <stdint.h> spellings, which give the same
LLVM signature (and so the same ABI) as the user's own `long`, `char`, `size_t`...
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Scalar:
    """An arithmetic C type: kind 'f' (floating), 'i' (signed), 'u' (unsigned), 'b' (bool)."""

    kind: str
    size: int
    """Bytes."""
    spelled: str
    """How the user's declaration spells it (for messages): `double`, `size_t`."""

    @property
    def c_decl(self) -> str:
        """The spelling in generated C (ABI-equivalent to the user's)."""
        return _C_DECL[(self.kind, self.size)]

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype of arrays of this type."""
        return np.dtype(_DTYPE[(self.kind, self.size)])

    @property
    def formats(self) -> str:
        """Buffer-protocol format characters accepted for arrays of this type."""
        return _FORMATS[(self.kind, self.size)]

    @property
    def is_float(self) -> bool:
        return self.kind == "f"


@dataclass(frozen=True)
class Pointer:
    """A pointer to `element` (a scalar, or a struct made only of that scalar type)."""

    element: Scalar
    const: bool
    """Declared `const T *`: C promises not to write through it."""
    spelled: str
    """The pointee as the user wrote it (`const Point`), for messages."""


@dataclass(frozen=True)
class Unsupported:
    """A type enzc.load cannot pass from Python; `why` says what it is."""

    why: str


CType = Scalar | Pointer | Unsupported

_C_DECL = {("f", 4): "float", ("f", 8): "double", ("b", 1): "_Bool",
           ("i", 1): "int8_t", ("i", 2): "int16_t", ("i", 4): "int32_t", ("i", 8): "int64_t",
           ("u", 1): "uint8_t", ("u", 2): "uint16_t", ("u", 4): "uint32_t", ("u", 8): "uint64_t"}
_DTYPE = {("f", 4): "float32", ("f", 8): "float64", ("b", 1): "bool",
          ("i", 1): "int8", ("i", 2): "int16", ("i", 4): "int32", ("i", 8): "int64",
          ("u", 1): "uint8", ("u", 2): "uint16", ("u", 4): "uint32", ("u", 8): "uint64"}
_FORMATS = {("f", 4): "f", ("f", 8): "d", ("b", 1): "?",
            ("i", 1): "b", ("i", 2): "h", ("i", 4): "i", ("i", 8): "lq",
            ("u", 1): "B", ("u", 2): "H", ("u", 4): "I", ("u", 8): "LQ"}


def scalar(kind: str, size: int, spelled: str) -> Scalar | Unsupported:
    """The scalar of that kind and size, or Unsupported (long double, _Float16, ...)."""
    if (kind, size) not in _C_DECL:
        return Unsupported(f"'{spelled}' ({size * 8}-bit) has no NumPy counterpart enzc passes")
    return Scalar(kind, size, spelled)


def describe(ctype: CType) -> str:
    """The type as a message names it: `double`, `const float *`."""
    match ctype:
        case Scalar():
            return ctype.spelled
        case Pointer():
            return f"{ctype.spelled} *"
        case Unsupported():
            return ctype.why
