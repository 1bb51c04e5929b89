"""Following a value through the instructions that pass it on (one worklist, shared).

Several checks ask "does anything computed from this value reach X?": a pointer
through address arithmetic to a call, float bits through integer operations to a
`ret`. `reaches` answers it once for all of them.
"""

from __future__ import annotations

from collections.abc import Callable

from enzc.ir.instructions import Instruction
from enzc.ir.values import Use, Value


def reaches(start: Value, passes_on: Callable[[Instruction], bool], hit: Callable[[Use], bool]) -> bool:
    """Whether a use of `start`, or of an instruction `passes_on` accepts among its
    users (transitively), satisfies `hit`."""
    seen: set[int] = set()
    work: list[Value] = [start]
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        for use in v.uses:
            if hit(use):
                return True
            user = use.user
            if isinstance(user, Instruction) and passes_on(user):
                work.append(user)
    return False
