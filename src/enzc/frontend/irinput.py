"""Textual IR inputs: `metadata !"enzyme_*"` markers in a form that survives bitcode.

LLVM 22's bitcode writer does not keep a metadata-string argument of a call: after
`llvm-as` (or clang compiling a .ll to bitcode) `metadata !"enzyme_dup"` reads back
as some unrelated value. The link path parses .ll text in-process and never sees
this, but `enzcc -c x.ll` goes through clang's bitcode. So such an input is first
rewritten: each marker becomes the address of the marker global (`ptr @enzyme_dup`,
declared if the module does not have it), which the AD stage reads the same way as
the metadata string, and which stays a plain value in bitcode. Lines are kept, so
clang's diagnostics still point at the user's line numbers.
"""

from __future__ import annotations

import re

_MARKER_ARG = re.compile(rb'\bmetadata\s+!"(enzyme_[A-Za-z_]+)"')
_BITCODE_MAGIC = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")


def prepared_input(path: str, rewritten: str) -> str:
    """The file clang should compile for IR input `path`: `rewritten` (written here)
    when the text has metadata markers, else `path` itself (also for bitcode, stdin)."""
    if path == "-":
        return path
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return path  # clang reports it
    new = None if data.startswith(_BITCODE_MAGIC) else rewrite_markers(data)
    if new is None:
        return path
    with open(rewritten, "wb") as f:
        f.write(new)
    return rewritten


def rewrite_markers(text: bytes) -> bytes | None:
    """The module with its metadata markers as marker globals; None if it has none."""
    names = sorted(set(_MARKER_ARG.findall(text)))
    if not names:
        return None
    out = _MARKER_ARG.sub(rb"ptr @\1", text)
    declared = [n for n in names
                if re.search(rb"^@" + re.escape(n) + rb"\s*=", out, re.MULTILINE) is None]
    if not declared:
        return out
    return out.rstrip(b"\n") + b"\n\n" + b"".join(
        b"@" + n + b" = external global i32\n" for n in declared)
