"""Regex-based parsing of the line-shaped module parts: metadata definitions and
attribute groups.

A module built with `-g` is often more than half metadata, one node per line, so
these lines skip the LALR parser: a node is split into its operands or `key: value`
fields with a few regexes and kept as text where enzc needs no structure (see
metadata.py). Errors are raised as `MDSyntax(column, message)`; parser.py adds the
file and line.
"""

from __future__ import annotations

import re
from typing import Callable

from enzc.ir.metadata import Metadata, MDRaw, MDRef, MDSpecialized, MDString, MDTuple, MDValue
from enzc.ir.names import unescape
from enzc.ir.types import IntType
from enzc.ir.values import ConstantInt, Value


class MDSyntax(Exception):
    """A malformed metadata or attribute line; `column` is 1-based within the line."""

    def __init__(self, column: int, message: str) -> None:
        super().__init__(message)
        self.column = column
        self.message = message


_ITEM = re.compile(
    r'(?:"[^"]*"'
    r'|\((?:[^()"]|"[^"]*"|\((?:[^()"]|"[^"]*")*\))*\)'
    r'|\{(?:[^{}"]|"[^"]*"|\{(?:[^{}"]|"[^"]*")*\})*\}'
    r'|[^,"(){}])+'
)
"""One comma-separated item, with strings and two levels of () or {} nesting inside."""

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*:")
_DEF = re.compile(r"!([-a-zA-Z$._0-9\\]+)[ \t]*=[ \t]*(distinct[ \t]+)?")
_INT_VALUE = re.compile(r"i([0-9]+)[ \t]+(-?[0-9]+|true|false)\Z")
_GLOBAL_VALUE = re.compile(r'ptr[ \t]+@([-a-zA-Z$._0-9]+|"[^"]*")\Z')

_ANY = r"undef|poison|zeroinitializer|[a-z_]+[ \t]*\(.*\)"
_TYPED_VALUE = re.compile(
    r"(?:i\d+[ \t]+(?:-?\d+|true|false|" + _ANY + ")"
    r"|(?:half|bfloat|float|double|fp128|x86_fp80|ppc_fp128)[ \t]+"
    r"(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|0x[0-9A-Fa-fKLMHR][0-9A-Fa-f]*|" + _ANY + ")"
    r'|ptr(?: addrspace\(\d+\))?[ \t]+(?:null|@[-\w$.]+|@"[^"]*"|' + _ANY + ")"
    r"|<[^<>]*>[ \t]+(?:<.*>|splat[ \t]*\(.*\)|" + _ANY + ")"
    r'|\[[^\[\]]*\][ \t]+(?:\[.*\]|c"[^"]*"|' + _ANY + ")"
    r"|(?:\{[^{}]*\}|%[-\w$.]+)[ \t]+(?:\{.*\}|" + _ANY + "))\\Z")
"""A value kept as text in a tuple (`float 1.0`, `ptr null`, `i64 ptrtoint (...)`):
a type, then a constant of that kind of type."""

_POINTER_ONLY = re.compile(r"(\S+(?: addrspace\(\d+\))?)[ \t]+(blockaddress|dso_local_equivalent|no_cfi)\b")
"""Constants LLVM gives only a pointer type."""

GlobalResolver = Callable[[str], Value | None]
"""Looks up a global by name (without `@`) for `ptr @g` operands; None if unknown."""


def split_items(inner: str, column: int) -> list[str]:
    """The top-level comma-separated items of `inner`, stripped."""
    if not inner.strip():
        return []
    if '"' not in inner and "(" not in inner and "{" not in inner:
        return [s.strip() for s in inner.split(",")]
    items = _ITEM.findall(inner)
    if ",".join(items) != inner:  # (not just the length: a stray `{` can take a comma's place)
        raise MDSyntax(column, "malformed metadata operand list")
    return [s.strip() for s in items]


def _tuple_operands(inner: str, column: int, resolve: GlobalResolver | None) -> list[Metadata | None]:
    return [parse_operand(s, column, resolve) for s in split_items(inner, column + 2)]


def _fields(inner: str, column: int) -> list[tuple[str, str]]:
    fields = []
    for item in split_items(inner, column):
        m = _KEY.match(item)
        if m:
            fields.append((item[: m.end() - 1], item[m.end() :].lstrip()))
        else:
            fields.append(("", item))
    return fields


def _shape(text: str, column: int) -> tuple[bool, str, int]:
    """(distinct, rest, where the operand list starts): checks the node's outline only."""
    distinct = text.startswith("distinct")
    if distinct:
        text = text[8:].lstrip()
    if text.startswith("!{") and text.endswith("}"):
        return distinct, text, 1
    paren = text.find("(")
    if text.startswith("!") and paren > 1 and text.endswith(")") and text[1:paren].isidentifier():
        return distinct, text, paren
    raise MDSyntax(column, f"expected metadata node, found '{text[:40]}'")


def parse_node(text: str, column: int = 1, distinct: bool = False, resolve: GlobalResolver | None = None) -> Metadata:
    """`!{...}` or `!DIKind(...)` (the right-hand side of a definition, or an inline node)."""
    is_distinct, text, paren = _shape(text, column)
    if distinct and is_distinct:
        raise MDSyntax(column, "expected metadata node, found 'distinct' twice")
    distinct = distinct or is_distinct
    if paren == 1:
        return MDTuple(_tuple_operands(text[2:-1], column, resolve), distinct)
    return MDSpecialized(text[1:paren], _fields(text[paren + 1 : -1], column + paren + 1), distinct)


class LazyContext:
    """What lazily split nodes of one module share: the file name for errors, and
    the global lookup for `ptr @g` operands."""

    __slots__ = ("filename", "resolve")

    def __init__(self, filename: str, resolve: GlobalResolver | None) -> None:
        self.filename, self.resolve = filename, resolve

    def error(self, line: int, e: MDSyntax) -> Exception:
        from enzc.ir.errors import IRParseError

        return IRParseError(self.filename, line, e.column, e.message)


class LazyMDSpecialized(MDSpecialized):
    """A specialized node whose fields are split from its text on first access.

    Most debug-info nodes are never looked at, only printed back; until `fields` is
    read, `str()` is the text as parsed."""

    def __init__(self, text: str, kind: str, distinct: bool, ctx: LazyContext, line: int, column: int) -> None:
        self.kind = kind
        self.distinct = distinct
        self._text: str | None = text
        self._fields: list[tuple[str, str]] | None = None
        self._ctx = ctx
        self._line = line
        self._column = column

    @property  # type: ignore[override]
    def fields(self) -> list[tuple[str, str]]:
        if self._fields is None:
            text = self._text
            assert text is not None
            paren = len(self.kind) + 1
            try:
                self._fields = _fields(text[paren + 1 : -1], self._column + paren + 1)
            except MDSyntax as e:
                raise self._ctx.error(self._line, e) from None
            self._text = None
        return self._fields

    @fields.setter
    def fields(self, value: list[tuple[str, str]]) -> None:
        self._fields = value
        self._text = None

    def __str__(self) -> str:
        if self._text is not None:
            return ("distinct " if self.distinct else "") + self._text
        return super().__str__()


class LazyMDTuple(MDTuple):
    """A tuple whose operands are parsed from its text on first access (see LazyMDSpecialized)."""

    def __init__(self, text: str, distinct: bool, ctx: LazyContext, line: int, column: int) -> None:
        self.distinct = distinct
        self._text: str | None = text
        self._operands: list[Metadata | None] | None = None
        self._ctx = ctx
        self._line = line
        self._column = column

    @property  # type: ignore[override]
    def operands(self) -> list[Metadata | None]:
        if self._operands is None:
            text = self._text
            assert text is not None
            try:
                self._operands = _tuple_operands(text[2:-1], self._column, self._ctx.resolve)
            except MDSyntax as e:
                raise self._ctx.error(self._line, e) from None
            self._text = None
        return self._operands

    @operands.setter
    def operands(self, value: list[Metadata | None]) -> None:
        self._operands = value
        self._text = None

    def __str__(self) -> str:
        if self._text is not None:
            return ("distinct " if self.distinct else "") + self._text
        return super().__str__()


_NUMBERED = re.compile(r"!([0-9]+) = (distinct )?(!(?:\{.*\}|([A-Za-z][A-Za-z0-9_]*)\(.*\)))\Z")
"""The usual shape of a numbered node definition, as LLVM prints it."""


def lazy_definition(line: str, ctx: LazyContext, lineno: int) -> tuple[str, Metadata | list[str]]:
    """Like `parse_definition`, but a numbered node's operands are split on first use."""
    m = _NUMBERED.match(line)
    if m is None:  # named metadata, unusual spacing, or an error: parse it now
        return parse_definition(line, ctx.resolve)
    key, distinct, rhs, kind = m.groups()
    column = m.start(3) + 1
    if kind is None:
        return key, LazyMDTuple(rhs, distinct is not None, ctx, lineno, column)
    return key, LazyMDSpecialized(rhs, kind, distinct is not None, ctx, lineno, column)


def parse_operand(item: str, column: int = 1, resolve: GlobalResolver | None = None) -> Metadata | None:
    """One operand of a metadata tuple; `None` for `null`."""
    if item.startswith("!"):
        if item[1:].isdigit():
            return MDRef(item[1:])
        if item.startswith('!"') and item.find('"', 2) == len(item) - 1:
            return MDString(unescape(item[2:-1]))
        return parse_node(item, column, resolve=resolve)
    if item == "null":
        return None
    if item.startswith("distinct"):
        return parse_node(item, column, resolve=resolve)
    m = _INT_VALUE.match(item)
    if m:
        v = m.group(2)
        num = 1 if v == "true" else 0 if v == "false" else int(v)
        bits = int(m.group(1))
        if not 1 <= bits <= 2**23:  # as for types anywhere else
            raise MDSyntax(column, f"invalid integer width {bits}")
        if v in ("true", "false") and bits != 1:  # ll:6313273
            raise MDSyntax(column, f"constant expression type mismatch: got type 'i1' but expected 'i{bits}'")
        return MDValue(ConstantInt(IntType(bits), num))
    if resolve is not None:
        g = _GLOBAL_VALUE.match(item)
        if g:
            name = g.group(1)
            if name.startswith('"'):
                name = unescape(name[1:-1]).decode("utf-8", "surrogateescape")
            value = resolve(name)
            if value is None:
                raise MDSyntax(column, f"use of undefined value '@{name}'")
            return MDValue(value)
    if not _TYPED_VALUE.match(item):
        raise MDSyntax(column, f"expected metadata operand, found '{item[:40]}'")
    if (m := _POINTER_ONLY.match(item)) is not None and not m.group(1).startswith("ptr"):
        raise MDSyntax(column, f"type of {m.group(2)} must be a pointer and not '{m.group(1)}'")
    return MDRaw(item)


def parse_definition(line: str, resolve: GlobalResolver | None = None) -> tuple[str, Metadata | list[str]]:
    """`!12 = [distinct] node` → ("12", node); `!name = !{!0, !1}` → ("name", ["0", "1"])."""
    m = _DEF.match(line)
    if not m:
        raise MDSyntax(1, "expected '!name = ...' metadata definition")
    key, distinct, rhs = m.group(1), m.group(2) is not None, line[m.end() :].rstrip()
    column = m.end() + 1
    if key[0].isdigit():
        if not key.isdigit():
            raise MDSyntax(1, f"invalid metadata id '!{key}'")
        return key, parse_node(rhs, column, distinct, resolve)
    if distinct or not (rhs.startswith("!{") and rhs.endswith("}")):
        raise MDSyntax(column, "named metadata must be a list of nodes: !{!0, !1}")
    ids = []
    for item in split_items(rhs[2:-1], column + 2):
        if not (item.startswith("!") and item[1:].isdigit()):
            raise MDSyntax(column, f"named metadata operand must be a node reference, found '{item}'")
        ids.append(item[1:])
    return key, ids


_ATTR_GROUP = re.compile(r"attributes[ \t]+#([0-9]+)[ \t]*=[ \t]*\{(.*)\}[ \t]*\Z", re.DOTALL)
_ATTR = re.compile(
    r'[ \t]*("[^"]*"(?:="[^"]*")?'
    r'|[A-Za-z_][A-Za-z0-9_]*(?:\((?:[^()"]|"[^"]*"|\((?:[^()"]|"[^"]*")*\))*\))?(?:=[A-Za-z0-9_]+)?)'
)


def parse_attribute_group(line: str) -> tuple[str, tuple[str, ...]]:
    """`attributes #0 = { nounwind "k"="v" }` → ("0", ("nounwind", '"k"="v"'))."""
    m = _ATTR_GROUP.match(line)
    if not m:
        raise MDSyntax(1, "expected 'attributes #N = { ... }'")
    inner = m.group(2)
    base = m.start(2)
    attrs = []
    pos = 0
    end = len(inner.rstrip())
    while pos < end:
        a = _ATTR.match(inner, pos)
        if not a or a.end() == pos:
            bad = len(inner) - len(inner[pos:].lstrip())
            raise MDSyntax(base + bad + 1, f"unexpected '{inner[bad:bad + 20].split()[0]}' in attribute group")
        attrs.append(a.group(1))
        pos = a.end()
    if not attrs:
        raise MDSyntax(1, "attribute group has no attributes")
    return m.group(1), tuple(attrs)
