"""Reuse of math the forward pass already computed, when a derivative rule needs it.

`sin`'s rule needs `cos(x)`; programs that rotate or integrate often compute
both `sin(x)` and `cos(x)` of the same `x` (Rodrigues' formula, polar
coordinates). The reverse pass then looks up the forward `cos(x)` instead of
calling `cos` again: a lookup is a register, a spill slot or one cache load,
where a second libm call costs tens of cycles.

A forward call can stand in only where it ran whenever the differentiated call
ran: its block dominates the call's block, inside the same loops or around
them (so the value of the current iteration is the one looked up).
"""

from __future__ import annotations

from enzc.ir.instructions import CallBase, Instruction
from enzc.ir.values import Value

from enzc.ad.analysis.calls import CallKind, callee_name, classify
from enzc.ad.analysis.gradient_state import GradientState
from enzc.ad.rules.table import has_rule


def math_base(name: str) -> str:
    """`llvm.cos.f64`, `cosf`, `cosl`, `cos` → `cos` (the rule table's spelling)."""
    if name.startswith("llvm."):
        return name[5:].split(".")[0]
    if name[-1:] in ("f", "l") and has_rule(name[:-1]):
        return name[:-1]
    return name


def equal_forward_call(gu: GradientState, base: str, args: list[Value], at: Instruction) -> Instruction | None:
    """An original call computing `base(args)` that ran whenever `at` ran, if any."""
    if not args or at.parent is None:
        return None
    at_loops = gu.loops.loops_of(at.parent)
    for user in args[0].users:
        if not isinstance(user, CallBase) or user is at or user.parent is None:
            continue
        if list(user.args) != args:
            continue
        name = callee_name(user)
        if name is None or math_base(name) != base:
            continue
        if classify(user, has_rule) is not CallKind.RULE:
            continue  # a user's own function of that name
        if not gu.dt.block_dominates(user.parent, at.parent):
            continue
        loops = gu.loops.loops_of(user.parent)
        if at_loops[: len(loops)] != loops:
            continue
        return user
    return None
