"""Metadata: kept structured enough to follow (`!dbg` → DILocation → DIFile) and
print back exactly, without modelling every debug-info field.

Numbered nodes keep the numbers they were parsed with, so lazily kept function
bodies that mention `!12` stay valid; nodes made by enzc get fresh numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from enzc.ir.names import escape_bytes

if TYPE_CHECKING:
    from enzc.ir.values import Value


class Metadata:
    """Base of metadata operands; `str()` is the LLVM spelling."""


@dataclass(eq=False)
class MDString(Metadata):
    data: bytes

    def __str__(self) -> str:
        return '!"' + escape_bytes(self.data) + '"'

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


@dataclass(eq=False)
class MDRef(Metadata):
    """A reference `!12` (or `!name` style ids) to a node defined at module level."""

    id: str

    def __str__(self) -> str:
        return "!" + self.id


@dataclass(eq=False)
class MDValue(Metadata):
    """A value used as metadata: `i32 1`, `ptr @f`, `ptr %x` (in debug records)."""

    value: Value

    def __str__(self) -> str:
        return self.value.typed_ref()


@dataclass(eq=False)
class MDRaw(Metadata):
    """Metadata kept as text where enzc needs no structure (e.g. `!DIExpression()`)."""

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(eq=False)
class MDTuple(Metadata):
    """`!{...}`; `None` operands print as `null`."""

    operands: list[Metadata | None]
    distinct: bool = False

    def __str__(self) -> str:
        inner = ", ".join("null" if o is None else str(o) for o in self.operands)
        return ("distinct " if self.distinct else "") + "!{" + inner + "}"


@dataclass(eq=False)
class MDSpecialized(Metadata):
    """`!DILocation(line: 3, column: 7, scope: !10)` with fields kept as text."""

    kind: str
    """e.g. DILocation, DISubprogram, DIFile."""
    fields: list[tuple[str, str]] = field(default_factory=list)
    """(key, value text); key "" for positional operands (`!DIExpression(DW_OP_deref)`)."""
    distinct: bool = False

    def __str__(self) -> str:
        inner = ", ".join(f"{k}: {v}" if k else v for k, v in self.fields)
        return ("distinct " if self.distinct else "") + f"!{self.kind}({inner})"

    def get(self, key: str) -> str | None:
        for k, v in self.fields:
            if k == key:
                return v
        return None


def unquote(field_text: str) -> str:
    """The content of a quoted field value like `"a.c"`."""
    if len(field_text) >= 2 and field_text[0] == field_text[-1] == '"':
        from enzc.ir.names import unescape

        return unescape(field_text[1:-1]).decode("utf-8", "replace")
    return field_text


@dataclass(frozen=True)
class SourceLocation:
    """Where an instruction came from, for diagnostics."""

    filename: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}"
