"""`__enzyme_fwdsplit`: forward mode without the primal's side effects, as far as enzc
can give it soundly.

Enzyme's forward split mode returns only tangents and reads the primal values it
cannot recompute from the tape of an earlier `__enzyme_augmentfwd` call, and frees
it. enzc's tapes are made for its reverse pass (`synth/split_mode.py`); no forward
derivative reads them. So enzc takes the case where no tape is needed: f reads and
writes no memory its caller can see (LLVM's inference gives it `memory(none)`; libm
writing `errno` and memory that only f's own allocations use are allowed), and the
call passes no tape or a null one. Every primal value is then a function of the
arguments, and the derivative is `__enzyme_fwddiff`'s (`fwddiffe_f`: it computes
them again, which has no effect the caller can see). A tape from `__enzyme_augmentfwd`,
or an f that reads or writes the caller's memory, is a compile-time error saying so.
"""

from __future__ import annotations

import re

from enzc.ir.instructions import CallBase
from enzc.ir.module import Function, Module
from enzc.ir.values import ConstantSimple, Value

from enzc.ad.diagnostics import ad_error

UNSEEN_MEMORY = frozenset({"errnomem", "inaccessiblemem"})
"""Memory locations of `memory(...)` the caller's data is not in."""

_HINT = ("use __enzyme_fwddiff (it returns the tangent and computes the primal again), or "
         "__enzyme_augmentfwd/__enzyme_reverse for split reverse mode")


def check_fwdsplit(module: Module, call: CallBase, caller: Function, fn: Function, trailing: list[Value]) -> None:
    """Raise the located error unless `fn` and the call's tape fit the case above."""
    if len(trailing) > 1:
        raise ad_error(module, call, caller.name or "?", f"__enzyme_fwdsplit of '{fn.name}' takes f's arguments "
                       f"and one tape, but {len(trailing)} values follow f's arguments", _HINT)
    if trailing and not _is_null(trailing[0]):
        raise ad_error(module, call, caller.name or "?", "enzc's __enzyme_fwdsplit takes no tape (NULL or "
                       "none): its forward derivatives do not read tapes of __enzyme_augmentfwd", _HINT)
    if not touches_no_visible_memory(module, fn):
        raise ad_error(module, call, caller.name or "?", f"enzc's __enzyme_fwdsplit handles functions that read "
                       f"and write none of the caller's memory; '{fn.name}' may (its primal values would need "
                       "a tape)", _HINT)


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


def _attributes(module: Module, fn: Function):
    for a in fn.fn_attrs:
        group = re.fullmatch(r"#(\S+)", a)
        if group and group.group(1) in module.attribute_groups:
            yield from module.attribute_groups[group.group(1)]
        else:
            yield a


def _is_null(v: Value) -> bool:
    return isinstance(v, ConstantSimple) and v.ref() == "null"
