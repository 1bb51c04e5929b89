"""Which call arguments carry shadows into distinct objects
(`enzc.ad.analysis.distinct_shadows`), on a small caller.

A pair found here becomes `!noalias` between two shadow arguments of the callee's
derivative, so every case where the shadows may be one buffer must stay out: two
arguments of the caller (the user may pass one shadow twice) unless the caller's
own call sites proved them distinct, globals (their shadows may be registered),
pointers loaded from memory or returned by calls, and one object passed twice.
"""

from __future__ import annotations

from enzc.ad.analysis.distinct_shadows import distinct_shadow_pairs
from enzc.ir import parse_module
from enzc.ir.instructions import CallBase

CALLER = """
@g = global [4 x double] zeroinitializer
@h = global [4 x double] zeroinitializer

declare ptr @malloc(i64)
declare ptr @pick(ptr)
declare void @callee(ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr)

define void @caller(ptr %a, ptr %b, ptr %pp) {
entry:
  %s = alloca [4 x double]
  %t = alloca [4 x double]
  %m = call ptr @malloc(i64 32)
  %m1 = getelementptr double, ptr %m, i64 1
  %loaded = load ptr, ptr %pp
  %picked = call ptr @pick(ptr %s)
  call void @callee(ptr %a, ptr %b, ptr %s, ptr %t, ptr %m1, ptr @g, ptr @h, ptr %loaded, ptr %picked, ptr %m)
  ret void
}
"""
A, B, S, T, M, G, H, LOADED, PICKED, M_AGAIN = range(10)


def pairs(distinct_args: frozenset[tuple[int, int]] = frozenset(), shadowed: set[int] | None = None):  # type: ignore[no-untyped-def]
    fn = parse_module(CALLER).functions["caller"]
    call = next(i for i in fn.instructions() if isinstance(i, CallBase) and i.called_function.name == "callee")
    return distinct_shadow_pairs(list(call.args), set(range(10)) if shadowed is None else shadowed, distinct_args)


def test_own_allocations_have_shadows_of_their_own() -> None:
    found = pairs()
    assert {(A, S), (B, T), (S, T), (A, M), (S, M), (S, G), (M, H)} <= found


def test_arguments_and_globals_need_the_callers_facts() -> None:
    found = pairs()
    assert (A, B) not in found and (A, G) not in found and (G, H) not in found
    assert (A, B) in pairs(distinct_args=frozenset({(0, 1)}))
    assert (A, B) not in pairs(distinct_args=frozenset({(0, 2)}))


def test_loaded_returned_and_repeated_pointers_count_for_nothing() -> None:
    found = pairs()
    for other in (A, S, M, G):
        assert (min(other, LOADED), max(other, LOADED)) not in found
        assert (min(other, PICKED), max(other, PICKED)) not in found
    assert (M, M_AGAIN) not in found  # one heap block passed twice (at different offsets)


def test_only_arguments_with_shadows_are_paired() -> None:
    assert pairs(shadowed={S, T}) == frozenset({(S, T)})
    assert pairs(shadowed={A}) == frozenset()
