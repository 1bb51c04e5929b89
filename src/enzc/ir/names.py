"""Spelling of LLVM identifiers: when a name needs quotes, and how to escape it."""

from __future__ import annotations

import re

_BARE = re.compile(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*\Z")


def escape_bytes(data: bytes) -> str:
    """LLVM string escaping: printable ASCII stays, `\\` doubles, `"` and the rest become `\\XX`."""
    out = []
    for b in data:
        if 0x20 <= b < 0x7F and b not in (0x22, 0x5C):
            out.append(chr(b))
        elif b == 0x5C:
            out.append("\\\\")
        else:
            out.append(f"\\{b:02X}")
    return "".join(out)


_ESCAPE = re.compile(rb"\\(\\|[0-9A-Fa-f]{2})")


def unescape(text: str) -> bytes:
    """Inverse of `escape_bytes` for the body of a quoted LLVM string."""
    raw = text.encode("utf-8", "surrogateescape")
    if b"\\" not in raw:
        return raw
    return _ESCAPE.sub(lambda m: b"\\" if m.group(1) == b"\\" else bytes([int(m.group(1), 16)]), raw)


def _ident(name: str) -> str:
    if _BARE.match(name) or name.isdigit():
        return name
    return '"' + escape_bytes(name.encode("utf-8", "surrogateescape")) + '"'


def local_ref(name: str) -> str:
    """`%name`, quoted when needed."""
    return "%" + _ident(name)


def global_ref(name: str) -> str:
    """`@name`, quoted when needed."""
    return "@" + _ident(name)


def unique_name(base: str, taken: set[str]) -> str:
    """`base` if free, else `base.1`, `base.2`, ... (LLVM's own scheme); adds it to `taken`."""
    name = base
    n = 0
    while name in taken:
        n += 1
        name = f"{base}.{n}"
    taken.add(name)
    return name


def unquote_name(text: str) -> str:
    """A name without its sigil: `%x` → `x`, `@"a b"` → `a b` (escapes decoded)."""
    body = text[1:]
    if body.startswith('"'):
        return unescape(body[1:-1]).decode("utf-8", "surrogateescape")
    return body
