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

GlobalResolver = Callable[[str], Value | None]
"""Looks up a global by name (without `@`) for `ptr @g` operands; None if unknown."""


def split_items(inner: str, column: int) -> list[str]:
    """The top-level comma-separated items of `inner`, stripped."""
    if not inner.strip():
        return []
    if '"' not in inner and "(" not in inner and "{" not in inner:
        return [s.strip() for s in inner.split(",")]
    items = _ITEM.findall(inner)
    if len(",".join(items)) != len(inner):
        raise MDSyntax(column, "malformed metadata operand list")
    return [s.strip() for s in items]


def parse_node(text: str, column: int = 1, distinct: bool = False, resolve: GlobalResolver | None = None) -> Metadata:
    """`!{...}` or `!DIKind(...)` (the right-hand side of a definition, or an inline node)."""
    if text.startswith("distinct"):
        distinct = True
        text = text[8:].lstrip()
    if text.startswith("!{") and text.endswith("}"):
        items = split_items(text[2:-1], column + 2)
        return MDTuple([parse_operand(s, column, resolve) for s in items], distinct)
    paren = text.find("(")
    if text.startswith("!") and paren > 1 and text.endswith(")") and text[1:paren].isidentifier():
        fields = []
        for item in split_items(text[paren + 1 : -1], column + paren + 1):
            m = _KEY.match(item)
            if m:
                fields.append((item[: m.end() - 1], item[m.end() :].lstrip()))
            else:
                fields.append(("", item))
        return MDSpecialized(text[1:paren], fields, distinct)
    raise MDSyntax(column, f"expected metadata node, found '{text[:40]}'")


def parse_operand(item: str, column: int = 1, resolve: GlobalResolver | None = None) -> Metadata | None:
    """One operand of a metadata tuple; `None` for `null`."""
    if item.startswith("!"):
        if item[1:].isdigit():
            return MDRef(item[1:])
        if item.startswith('!"') and item.endswith('"') and len(item) >= 3:
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
        return MDValue(ConstantInt(IntType(int(m.group(1))), num))
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
    if not item or item[0] in ",)}":
        raise MDSyntax(column, f"expected metadata operand, found '{item[:40]}'")
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


_ATTR_GROUP = re.compile(r"attributes[ \t]+#([0-9]+)[ \t]*=[ \t]*\{(.*)\}[ \t]*\Z")
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
    return m.group(1), tuple(attrs)
