"""Which pointer arguments of a call carry shadows into distinct objects.

A callee's derivative may tell LLVM that two of its shadow arguments never
overlap (`synth/alias_scopes.py`) only when that holds at every call site, and
that must follow from what enzcc itself made, not from the primal objects
alone: the shadow of an `alloca` or of a fresh heap block of the caller is a
block the caller's derivative allocates for that object only (a zeroed twin
alloca, `memory/heap.shadow_allocation`), created after every argument was
passed, so it overlaps no other shadow; the shadows of two arguments of the
caller are distinct when the caller's own call sites said so
(`Signature.distinct_shadows`). Two distinct objects the user made (two
globals, a `noalias` argument and another one, two arguments at the entry
call) do not count: their shadows come from the user or from registrations,
and one buffer may be passed for both. Pointers loaded from memory or returned
by calls may be anything, so they count for nothing either.
"""

from __future__ import annotations

from enzc.ir.instructions import Alloca
from enzc.ir.module import GlobalVariable
from enzc.ir.values import Argument, Value

from enzc.ad.analysis.memory_facts import DistinctArgs, is_fresh_allocation, underlying_objects


def _own_shadow(v: Value) -> bool:
    """An object whose shadow the caller's derivative allocates for it alone."""
    return isinstance(v, Alloca) or is_fresh_allocation(v)


def _traced(v: Value) -> bool:
    """An object whose shadow is known: an argument's, a global's, or its own."""
    return isinstance(v, (Argument, GlobalVariable)) or _own_shadow(v)


def shadows_may_alias(a: Value, b: Value, distinct_args: DistinctArgs) -> bool:
    """Whether the shadows of underlying objects `a` and `b` may overlap, given the
    pairs of the caller's arguments whose shadows are distinct (`distinct_args`)."""
    if a is b or not (_traced(a) and _traced(b)):
        return True
    if _own_shadow(a) or _own_shadow(b):
        return False
    if isinstance(a, Argument) and isinstance(b, Argument):
        return (min(a.index, b.index), max(a.index, b.index)) not in distinct_args
    return True


def distinct_shadow_pairs(args: list[Value], shadowed: set[int], distinct_args: DistinctArgs) -> DistinctArgs:
    """The pairs `(i, j)` of a call's arguments with shadows (`shadowed`) whose shadows
    point into distinct objects, in a caller whose own argument pairs `distinct_args`
    have distinct shadows."""
    objects = {k: underlying_objects(args[k]) for k in sorted(shadowed)}
    return frozenset((i, j) for i in objects for j in objects if i < j
                     and not any(shadows_may_alias(x, y, distinct_args) for x in objects[i] for y in objects[j]))
