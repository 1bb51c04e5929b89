"""A forward derivative skips the primal writes through `enzyme_dupnoneed` pointers.

`analysis.write_only` decided, on the original function, which `dupnoneed`
parameters' memory is only written (its reads feed only its own writes). Here, in
the finished derivative, the primal stores through those parameters go, and with
them the loads and moves that fed only them. If any load through them would stay
(the tangent code uses a primal value after all), nothing is removed: the primal
writes then happen as for `enzyme_dup`, which is always correct for a valid pointer.
"""

from __future__ import annotations

from enzc.ir.instructions import CallBase, Instruction, Load, Store
from enzc.ir.values import Value

from enzc.ad.analysis.write_only import pointers_from


def drop_primal_writes(params: list[Value]) -> int:
    """Remove the stores through `params` (primal pointers of a derivative) and what
    fed only them; returns how many instructions went (0 when something still reads)."""
    pointers = pointers_from(params)
    if not params or pointers is None:
        return 0
    dead: dict[Instruction, None] = {}
    loads: list[Load] = []
    for v in pointers:
        for user in v.users:
            if isinstance(user, Store) and user.ptr is v and user.value not in pointers:
                dead[user] = None
            elif isinstance(user, Load):
                loads.append(user)
    todo = [op for s in dead for op in s.operands]
    while todo:
        x = todo.pop()
        if not isinstance(x, Instruction) or x in dead or not _removable(x):
            continue
        if all(u in dead for u in x.users if isinstance(u, Instruction)):
            dead[x] = None
            todo.extend(x.operands)
    if any(load not in dead for load in loads):
        return 0
    for inst in dead:  # each one's users were added (and so erased) before it
        inst.erase()
    return len(dead)


def _removable(inst: Instruction) -> bool:
    """No effect besides its value: loads, arithmetic, moves, phis (not calls, stores, terminators)."""
    return not isinstance(inst, (CallBase, Store)) and not inst.is_terminator and inst.opcode not in (
        "alloca", "atomicrmw", "cmpxchg", "fence", "va_arg", "landingpad")
