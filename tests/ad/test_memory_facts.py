"""Memory facts (`enzc.ad.analysis.memory_facts`): the alias rules on IR snippets, which stores
are undone, and end to end that ADBench-shaped gradients reload their inputs.

The gradients themselves are checked by the programs under programs/rev2/memory
(test_gradients_rev2); here we check the decisions, so a regression that falls
back to caching (correct but slow) or that stops seeing a write (fast but wrong,
which the programs catch) is named precisely.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from enzc.ir.loops import LoopInfo
from enzc.ad.analysis.memory_facts import (
    MemoryFacts,
    TBAAOrder,
    call_write_targets,
    distinct_pairs,
    may_alias,
    objects_may_alias,
    underlying_object,
    underlying_objects,
)
from enzc.ad.rules.table import has_rule
from enzc.ir import parse_module
from enzc.ir.dominators import DominatorTree
from enzc.ir.instructions import CallBase, Load, Store

PROGRAMS = Path(__file__).parent / "programs" / "rev2" / "memory"
ENZCC = Path(sys.executable).with_name("enzcc")

OBJECTS = """
@g = global [4 x double] zeroinitializer
@h = global double 0.0
@ga = alias double, ptr @h
declare ptr @malloc(i64)
declare ptr @realloc(ptr, i64)
declare ptr @opaque()

define void @f(ptr %a, ptr %b, ptr noalias %r, i64 %n, i64 %k, i1 %c) {
  %s = alloca double
  %t = alloca double
  %m1 = call ptr @malloc(i64 %n)
  %m2 = call ptr @malloc(i64 %n)
  %re = call ptr @realloc(ptr %a, i64 %n)
  %ld = load ptr, ptr %b
  %ip = inttoptr i64 %k to ptr
  %op = call ptr @opaque()
  %gep = getelementptr double, ptr %m1, i64 %k
  %sel = select i1 %c, ptr %a, ptr %m2
  %cgep = getelementptr double, ptr getelementptr inbounds ([4 x double], ptr @g, i64 0, i64 1), i64 %k
  ret void
}
"""


@pytest.fixture(scope="module")
def objects():
    m = parse_module(OBJECTS)
    fn = m.functions["f"]
    vals = {a.name: a for a in fn.args}
    vals.update({i.name: i for i in fn.instructions() if i.name})
    vals.update({"g": m.globals["g"], "h": m.globals["h"], "ga": m.aliases["ga"]})
    return vals


@pytest.mark.parametrize(("x", "y"), [
    ("m1", "a"), ("m1", "g"), ("m1", "s"), ("m1", "m2"),   # fresh blocks are new objects
    ("s", "t"), ("s", "a"), ("s", "g"), ("g", "h"),         # allocas and globals are distinct
    ("r", "a"), ("r", "g"),                                 # noalias argument
])
def test_distinct_objects(objects, x: str, y: str) -> None:
    assert not may_alias(objects[x], objects[y])
    assert not may_alias(objects[y], objects[x])


@pytest.mark.parametrize(("x", "y"), [
    ("a", "b"), ("a", "g"),                  # arguments may point at each other and at globals
    ("re", "a"), ("re", "m1"),               # realloc may return its old block
    ("ld", "m1"), ("ld", "a"), ("ld", "s"),  # a loaded pointer may be anything stored
    ("ip", "s"), ("ip", "m1"), ("op", "a"),  # integer-to-pointer and unknown calls
    ("ga", "h"),                             # a global alias is its aliasee
    ("m1", "m1"),
])
def test_possible_aliases(objects, x: str, y: str) -> None:
    assert may_alias(objects[x], objects[y])


def test_underlying_objects(objects) -> None:
    assert underlying_object(objects["gep"]) is objects["m1"]
    assert underlying_object(objects["cgep"]) is objects["g"]
    assert {id(o) for o in underlying_objects(objects["sel"])} == {id(objects["a"]), id(objects["m2"])}


TBAA = """
define void @f(ptr %p) {
  ret void
}
!0 = !{!"Simple C/C++ TBAA"}
!1 = !{!"omnipotent char", !0, i64 0}
!2 = !{!"double", !1, i64 0}
!3 = !{!"int", !1, i64 0}
!4 = !{!"long", !1, i64 0}
!5 = !{!"S", !3, i64 0, !2, i64 8}
!6 = !{!"other TBAA"}
!7 = !{!"double", !6, i64 0}
!10 = !{!2, !2, i64 0}
!11 = !{!3, !3, i64 0}
!12 = !{!1, !1, i64 0}
!13 = !{!5, !2, i64 8}
!14 = !{!5, !3, i64 0}
!15 = !{!7, !7, i64 0}
!16 = !{!4, !4, i64 0}
"""


@pytest.fixture(scope="module")
def tbaa():
    m = parse_module(TBAA)
    order = TBAAOrder(m)
    return lambda a, b: order.may_alias(*(m.metadata[str(x)] if x is not None else None for x in (a, b)))


@pytest.mark.parametrize(("a", "b", "alias"), [
    (10, 11, False),   # double vs int: strict aliasing
    (11, 16, False),   # int vs long
    (10, 10, True),
    (10, 12, True),    # char aliases everything
    (12, 11, True),
    (10, None, True),  # no tag: anything
    (13, 11, False),   # S.b (a double member) vs an int
    (14, 11, True),    # S.a is an int
    (13, 10, True),    # S.b vs a double
    (15, 11, True),    # different type systems: unknown
])
def test_tbaa(tbaa, a, b, alias: bool) -> None:
    assert tbaa(a, b) is alias
    assert tbaa(b, a) is alias


CALLS = """
@signgam = global i32 0
declare void @argw(ptr, ptr) memory(argmem: readwrite)
declare void @argro(ptr readonly, ptr) memory(argmem: readwrite)
declare double @errw(double) memory(errnomem: write)
declare void @other(ptr) memory(readwrite, argmem: none)
declare void @unknown(ptr)
declare void @ro(ptr) readonly
declare double @lgamma(double)

define void @f(ptr %p, ptr %q, i64 %n) {
  call void @argw(ptr %p, ptr %q)
  call void @argro(ptr %p, ptr %q)
  call void @argw(ptr readonly %q, ptr %p)
  %e = call double @errw(double 1.0)
  call void @other(ptr %p)
  call void @unknown(ptr %p)
  call void @ro(ptr %p)
  %l = call double @lgamma(double 1.0)
  ret void
}
"""


def test_call_write_targets() -> None:
    m = parse_module(CALLS)
    all_calls = [c for c in m.functions["f"].instructions() if isinstance(c, CallBase)]
    calls = {c.called_function.name: c for c in reversed(all_calls)}  # the first call of each name
    p, q = m.functions["f"].args[:2]
    assert call_write_targets(calls["argw"], m) == [p, q]
    # a `readonly` parameter (of the callee or at the call site) is not written through
    assert call_write_targets(calls["argro"], m) == [q]
    assert call_write_targets(all_calls[2], m) == [p]
    assert call_write_targets(calls["errw"], m) == []
    assert call_write_targets(calls["other"], m) is None
    assert call_write_targets(calls["unknown"], m) is None
    assert call_write_targets(calls["ro"], m) == []
    assert call_write_targets(calls["lgamma"], m) == [m.globals["signgam"]]


def test_distinct_pairs_of_call_arguments() -> None:
    """Arguments a call passes into distinct objects; the callee's `Signature.distinct`."""
    m = parse_module("""
declare ptr @malloc(i64)
declare void @g(ptr, ptr, ptr, ptr, i64)
define void @f(ptr %p, ptr noalias %r) {
  %a = alloca [4 x double]
  %h = call ptr @malloc(i64 32)
  %a1 = getelementptr double, ptr %a, i64 1
  call void @g(ptr %a, ptr %h, ptr %p, ptr %a1, i64 3)
  call void @g(ptr %p, ptr %r, ptr %p, ptr %h, i64 3)
  ret void
}
""")
    first, second = [c for c in m.functions["f"].instructions()
                     if isinstance(c, CallBase) and c.called_function.name == "g"]
    # alloca/malloc/argument are pairwise distinct; %a1 is inside %a; the i64 is no pointer
    assert distinct_pairs(list(first.args), objects_may_alias) == {(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)}
    # %p twice is the same object; noalias %r is distinct from %p and from the malloc
    assert distinct_pairs(list(second.args), objects_may_alias) == {(0, 1), (0, 3), (1, 2), (1, 3), (2, 3)}


LOOP = """
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
define void @f(ptr %x, ptr %out, ptr %bins, i64 %n, i1 %c) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %px = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %px, !tbaa !10
  %s1 = fadd double %s, %v
  %pb = getelementptr i32, ptr %bins, i64 %i
  store i32 0, ptr %pb, !tbaa !11
  %i1 = add i64 %i, 1
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %loop
exit:
  %sum = phi double [ %s1, %loop ]
  store double %sum, ptr %out, !tbaa !10
  br i1 %c, label %more, label %ret
more:
  STORE
  br label %ret
ret:
  ret void
}
!0 = !{!"Simple C/C++ TBAA"}
!1 = !{!"omnipotent char", !0, i64 0}
!2 = !{!"double", !1, i64 0}
!3 = !{!"int", !1, i64 0}
!10 = !{!2, !2, i64 0}
!11 = !{!3, !3, i64 0}
"""


def facts(second_store: str, split: bool = False) -> tuple[MemoryFacts, Load, list[Store]]:
    m = parse_module(LOOP.replace("STORE", second_store))
    fn = m.functions["f"]
    dt = DominatorTree(fn)
    gu = SimpleNamespace(module=m, original=fn, split=split, stable_args=frozenset(), distinct_args=frozenset(), dt=dt,
                         loops=LoopInfo(fn, dt), has_rule=has_rule)
    load = next(i for i in fn.instructions() if isinstance(i, Load))
    stores = [i for i in fn.instructions() if isinstance(i, Store) and i.value.type.__str__() == "double"]
    return MemoryFacts(gu), load, stores  # type: ignore[arg-type]


def test_final_stores_are_undone_in_forward_order() -> None:
    mf, load, stores = facts("store double 2.0, ptr %out, !tbaa !10")
    assert mf.undone == stores  # the int stores in the loop cannot overlap the doubles (TBAA)
    assert mf.load_unchanged(load)


def test_untagged_store_may_overlap_the_int_stores() -> None:
    """Without a TBAA tag the second store may overlap the loop's int stores, which
    cannot be undone: replaying it at the end could reorder them, so nothing is undone."""
    mf, load, _ = facts("store double 2.0, ptr %out")
    assert mf.undone == []
    assert not mf.load_unchanged(load)


def test_no_undo_in_split_mode() -> None:
    mf, load, _ = facts("store double 2.0, ptr %out, !tbaa !10", split=True)
    assert mf.undone == []
    assert not mf.load_unchanged(load)


def test_no_undo_next_to_another_write() -> None:
    """A memset of the same memory could not be replayed in order: nothing is undone."""
    mf, load, _ = facts("call void @llvm.memset.p0.i64(ptr %out, i8 0, i64 8, i1 false)")
    assert mf.undone == []
    assert not mf.load_unchanged(load)


def test_no_undo_of_volatile_stores() -> None:
    mf, load, _ = facts("store volatile double 2.0, ptr %out")
    assert mf.undone == []
    assert not mf.load_unchanged(load)


def cached_values(program: str, tmp_path: Path) -> dict[str, int]:
    run = subprocess.run([str(ENZCC), "-O2", "--enzc-print-cache", "-c", str(PROGRAMS / program),
                          "-o", str(tmp_path / "x.o")], check=True, capture_output=True, text=True)
    out = {}
    for line in (run.stdout + run.stderr).splitlines():
        if line.startswith("; diffe_") and " cached values" in line:
            name, rest = line[2:].split(":", 1)
            out[name] = int(rest.split()[0])
    return out


@pytest.mark.parametrize(("program", "derivative"), [
    ("const_loop_out.c", "diffe_objective"),  # malloc'd temporary + final *out store
    ("aliased_out.c", "diffe_squares"),       # the final store may alias the input
    ("int_and_double.c", "diffe_bucket"),     # int stores in the loop (TBAA)
    ("global_coefficients.c", "diffe_weigh"), # a global read in the loop, updated at the end
])
def test_inputs_are_reloaded_not_cached(program: str, derivative: str, tmp_path: Path) -> None:
    assert cached_values(program, tmp_path) == {derivative: 0}
