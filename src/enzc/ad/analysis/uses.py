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


def derived_values(roots, follows: Callable[[Instruction, Value], bool]) -> dict[Value, None]:
    """`roots` and, transitively, every user `u` of a value `v` in the set with
    `follows(u, v)` (e.g. the pointers computed from some pointers), in discovery order."""
    seen: dict[Value, None] = dict.fromkeys(roots)
    todo = list(seen)
    while todo:
        v = todo.pop()
        for user in v.users:
            if user not in seen and follows(user, v):
                seen[user] = None
                todo.append(user)
    return seen


ADDRESS_STEPS = frozenset({"getelementptr", "bitcast", "phi", "select"})
"""Instructions whose pointer result points where (one of) their pointer operands do."""


def is_address_step(inst: object) -> bool:
    return isinstance(inst, Instruction) and inst.opcode in ADDRESS_STEPS


def derived_addresses(pointer: Value) -> dict[Value, None]:
    """`pointer` and every address computed from it (`ADDRESS_STEPS`), in discovery order."""
    return derived_values([pointer], lambda user, _: is_address_step(user))
