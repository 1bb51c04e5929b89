"""Whether a function touches memory its caller can see, by its attributes.

Forward split mode (`fwdsplit`, `synth/forward_split`) recomputes a call to such a
function instead of reading its result from the tape, and takes a NULL tape for a
function that touches none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from enzc.ir.module import Function, Module

UNSEEN_MEMORY = frozenset({"errnomem", "inaccessiblemem"})
"""Memory locations of `memory(...)` the caller's data is not in."""


def touches_no_visible_memory(module: Module, fn: Function) -> bool:
    """Whether `fn`'s attributes say it reads and writes no memory but errno and
    inaccessible memory (`readnone`, `memory(none)`, `memory(errnomem: write)`)."""
    for attr in _attributes(module, fn):
        if attr == "readnone":
            return True
        if attr.startswith("memory(") and attr.endswith(")"):
            return all(_unseen(clause.strip()) for clause in attr[len("memory("):-1].split(","))
    return False


def _unseen(clause: str) -> bool:
    """`none`, or a location the caller's data is not in, or any location not accessed."""
    location, _, access = clause.partition(":")
    if not access:
        return location.strip() == "none"
    return location.strip() in UNSEEN_MEMORY or access.strip() == "none"


def _attributes(module: Module, fn: Function) -> Iterator[str]:
    for a in fn.fn_attrs:
        group = re.fullmatch(r"#(\S+)", a)
        if group and group.group(1) in module.attribute_groups:
            yield from module.attribute_groups[group.group(1)]
        else:
            yield a
