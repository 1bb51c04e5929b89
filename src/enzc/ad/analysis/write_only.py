"""Pointer arguments whose memory a function only writes: `enzyme_dupnoneed` in forward mode.

`enzyme_dupnoneed, x, dx` says the primal results written through `x` are not
needed, so a caller may pass an invalid `x` (Enzyme's sparse Hessians pass
`(double *)0x1`). A forward derivative can skip the writes through `x` only if
nothing it computes reads them back: every load through `x` (or a pointer computed
from it) must feed, through operations whose tangents need no primal value (`fadd`,
`fsub`, `fneg`, moves, phis, selects), nothing but stores through `x` — the
`dx[i] += a` of a reverse pass differentiated in forward mode. A call passing such
a pointer must pass it to a defined function where the same holds for that
parameter. Anything else (an integer conversion, an external call, the pointer
stored as a value) keeps the writes.
"""

from __future__ import annotations

from collections.abc import Iterable

from enzc.ir.instructions import CallBase, Cast, Freeze, GetElementPtr, Instruction, Load, Phi, Select, Store
from enzc.ir.module import Function
from enzc.ir.values import Value

from enzc.ad.analysis.uses import derived_values

POINTER_MOVES = ("bitcast", "addrspacecast")
PRIMAL_FREE = ("fadd", "fsub", "fneg", "bitcast", "phi", "select", "freeze", "extractvalue", "insertvalue",
               "extractelement", "insertelement", "shufflevector")
"""Operations whose tangent needs no primal value of the operand that came from memory."""


def pointers_from(roots: Iterable[Value]) -> dict[Value, None] | None:
    """`roots` and the pointers computed from them; None where a phi or select mixes
    them with other pointers (their memory is then not theirs alone)."""
    seen = derived_values(roots, _moves_pointer)
    for v in seen:
        inputs = [x for x, _ in v.incoming] if isinstance(v, Phi) else \
            [v.operand(1), v.operand(2)] if isinstance(v, Select) else []
        if isinstance(v, Select) and v.operand(0) in seen:
            return None
        if any(x not in seen for x in inputs):
            return None
    return seen


def write_only_params(fn: Function, params: Iterable[int]) -> frozenset[int]:
    """The parameters among `params` whose memory `fn` (and what it calls) only writes."""
    return frozenset(i for i in params if _write_only(fn, i, set()))


def _write_only(fn: Function, index: int, visiting: set[tuple[int, int]]) -> bool:
    if fn.is_declaration or fn.function_type.vararg or index >= len(fn.args):
        return False
    if (id(fn), index) in visiting:
        return True  # recursion: the answer is the one being computed
    visiting.add((id(fn), index))
    if not fn.blocks:  # parses a lazy body: only then do the arguments know their users
        return False
    pointers = pointers_from([fn.args[index]])
    if pointers is None:
        return False
    for v in pointers:
        for user in v.users:
            if user in pointers or not isinstance(user, Instruction):
                continue
            if not _use_only_writes(user, v, pointers, visiting):
                return False
    return True


def _use_only_writes(user: Instruction, v: Value, pointers: dict[Value, None],
                     visiting: set[tuple[int, int]]) -> bool:
    if isinstance(user, Store):
        return user.ptr is v and user.value not in pointers and not user.volatile and user.ordering is None
    if isinstance(user, Load):
        return not user.volatile and user.ordering is None and _feeds_only_writes(user, pointers)
    if isinstance(user, CallBase):
        callee = user.called_function
        if callee is None or user.callee in pointers:
            return False
        return all(_write_only(callee, i, visiting) for i, a in enumerate(user.args) if a in pointers)
    return False


def _feeds_only_writes(load: Load, pointers: dict[Value, None]) -> bool:
    """Whether what `load` reads only reaches stores into `pointers`, through primal-free moves."""
    seen: set[int] = set()
    todo: list[Value] = [load]
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        for user in x.users:
            if not isinstance(user, Instruction):
                continue
            if isinstance(user, Store):
                if user.value is not x or user.ptr not in pointers:
                    return False
            elif user.opcode in PRIMAL_FREE and not (isinstance(user, Select) and user.operand(0) is x):
                todo.append(user)
            else:
                return False
    return True


def _moves_pointer(user: Value, v: Value) -> bool:
    if isinstance(user, GetElementPtr):
        return user.ptr is v
    if isinstance(user, Cast):
        return user.opcode in POINTER_MOVES
    if isinstance(user, Select):
        return user.operand(1) is v or user.operand(2) is v
    return isinstance(user, (Phi, Freeze))
