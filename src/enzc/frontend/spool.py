"""Inputs that can be read only once: standard input, pipes, `<(...)`, devices.

enzcc reads an input more than once (its own scans for registrations and Enzyme
attributes, the frontend, a second frontend run that keeps registrations, the
collection of IR at link time); a pipe is empty the second time. So such an input
is read once, at the start, into the temporary directory (`Input.copy`), and every
step reads the copy. clang still sees the input as the user named it:

- `-` (stdin) is handed to clang on its standard input, as `-`: clang names it
  `<stdin>` and searches `#include "..."` from the working directory, as usual.
- any other path P is compiled from the copy, with what would betray the copy
  mapped back to P: `#include "..."` is searched in P's directory (`-iquote`),
  debug information and `__FILE__` name P (`-ffile-prefix-map`), diagnostics and
  the dependency file name P.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from dataclasses import replace

from enzc.frontend.args import Input, InputKind, Invocation

STDIN = "-"


def needs_copy(path: str) -> bool:
    """True for inputs a second read would not see again (stdin, pipes, devices)."""
    if path == STDIN:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # missing: reported before the build starts
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)


def spool_inputs(inv: Invocation, tmp: str) -> Invocation:
    """`inv` with every read-once input copied into `tmp` (each read exactly once)."""
    items = list(inv.items)
    for number, item in enumerate(items):
        if isinstance(item, Input) and needs_copy(item.path):
            folder = os.path.join(tmp, "inputs", str(number))
            os.makedirs(folder)
            name = "stdin" if item.path == STDIN else os.path.basename(item.path) or "input"
            if item.kind == InputKind.IR and not name.endswith((".ll", ".bc")):
                name += ".ll"  # the link reads IR inputs by suffix or bitcode magic
            copy = os.path.join(folder, name)
            with open(copy, "wb") as out:
                if item.path == STDIN:
                    shutil.copyfileobj(sys.stdin.buffer, out)
                else:
                    with open(item.path, "rb") as src:
                        shutil.copyfileobj(src, out)
            items[number] = replace(item, copy=copy)
    return replace(inv, items=items)


def copy_flags(original: str, copy: str) -> list[str]:
    """clang flags (before the user's) under which compiling `copy` is compiling
    `original`: its directory first for `#include "..."`, its name in debug
    information and `__FILE__`."""
    return ["-iquote", os.path.dirname(original) or ".", f"-ffile-prefix-map={copy}={original}"]


def restore_dependency_file(path: str, copy: str, original: str) -> None:
    """Make the dependency file at `path` name `original` where it names `copy`."""
    with open(path, "rb") as f:
        text = f.read()
    with open(path, "wb") as f:
        f.write(text.replace(_make_escaped(copy), _make_escaped(original)))


def _make_escaped(path: str) -> bytes:
    """A path as clang writes it into a dependency file."""
    out = bytearray()
    for byte in os.fsencode(path):
        if byte in b" #":
            out += b"\\"
        elif byte == ord("$"):
            out += b"$"
        out.append(byte)
    return bytes(out)
