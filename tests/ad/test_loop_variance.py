"""Which loops a value varies in (`enzc.ad.analysis.loop_variance`), on small IR nests.

A cache is indexed only by the loops its value varies in, so a wrong "invariant"
answer would make the reverse pass read another iteration's value: every case
where a write in the middle loop may reach the load must keep that loop.
Gradients of the same shapes are checked end to end in
tests/ad/programs/rev2/tape/invariant_loads.c.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from enzc.ad.analysis.loop_variance import LoopVariance
from enzc.ad.analysis.memory_facts import MemoryFacts
from enzc.ad.rules.table import has_rule
from enzc.ir import parse_module
from enzc.ir.dominators import DominatorTree
from enzc.ir.instructions import Instruction
from enzc.ir.loops import LoopInfo

NEST = """
define void @f(ptr PTR_ATTRS %out, ptr %in, i64 %n) {
entry:
  br label %r.loop
r.loop:
  %r = phi i64 [ 0, %entry ], [ %r.next, %r.latch ]
  %row = mul i64 %r, %n
  br label %o.loop
o.loop:
  %o = phi i64 [ 0, %r.loop ], [ %o.next, %o.latch ]
  %wrow = mul i64 %o, %n
  br label %i.loop
i.loop:
  %i = phi i64 [ 0, %o.loop ], [ %i.next, %i.loop ]
  %s = phi double [ 0.0, %o.loop ], [ %s.next, %i.loop ]
  %k = add i64 %row, %i
  %pa = getelementptr inbounds double, ptr %in, i64 %k
  %a = load double, ptr %pa
  %wk = add i64 %wrow, %i
  %pw = getelementptr inbounds double, ptr %in, i64 %wk
  %w = load double, ptr %pw
  %m = fmul double %a, %w
  %sq = fmul double %a, %a
  %s.next = fadd double %s, %m
  %i.next = add i64 %i, 1
  %ci = icmp eq i64 %i.next, %n
  br i1 %ci, label %o.latch, label %i.loop
o.latch:
  %po = getelementptr inbounds double, ptr STORE_BASE, i64 %o
  store double %s.next, ptr %po
  %o.next = add i64 %o, 1
  %co = icmp eq i64 %o.next, %n
  br i1 %co, label %r.latch, label %o.loop
r.latch:
  %r.next = add i64 %r, 1
  %cr = icmp eq i64 %r.next, %n
  br i1 %cr, label %exit, label %r.loop
exit:
  ret void
}
"""


def variance(ptr_attrs: str = "", store_base: str = "%out",
             distinct: frozenset[tuple[int, int]] = frozenset()) -> dict[str, list[str]]:
    """Value name -> names of the header blocks of the loops it varies in, for NEST."""
    m = parse_module(NEST.replace("PTR_ATTRS", ptr_attrs).replace("STORE_BASE", store_base))
    fn = m.functions["f"]
    dt = DominatorTree(fn)
    loops = LoopInfo(fn, dt)
    gu = SimpleNamespace(module=m, original=fn, split=False, stable_args=frozenset(), distinct_args=distinct,
                         dt=dt, loops=loops, has_rule=has_rule)
    facts = MemoryFacts(gu)
    lv = LoopVariance(loops, facts.clobbered_in)
    names = {}
    for inst in fn.instructions():
        if isinstance(inst, Instruction) and inst.name:
            names[inst.name] = sorted(L.header.name for L in lv.varying(inst))
    return names


def test_counters_and_addresses() -> None:
    got = variance("noalias")
    assert got["r"] == ["r.loop"]
    assert got["o"] == ["o.loop"]
    assert got["i"] == ["i.loop"]
    assert got["k"] == ["i.loop", "r.loop"]  # r * n + i: not the middle loop
    assert got["wk"] == ["i.loop", "o.loop"]


def test_read_only_input_does_not_vary_in_the_middle_loop() -> None:
    """`out` is noalias: the store in the middle loop cannot reach `in`."""
    got = variance("noalias")
    assert got["a"] == ["i.loop", "r.loop"]
    assert got["sq"] == ["i.loop", "r.loop"]  # computed from it alone
    assert got["w"] == ["i.loop", "o.loop"]
    assert got["m"] == ["i.loop", "o.loop", "r.loop"]


def test_store_through_a_possible_alias_makes_it_vary() -> None:
    """Without noalias, `out` may point into `in`: the middle loop's store may change `a`."""
    got = variance("")
    assert got["a"] == ["i.loop", "o.loop", "r.loop"]
    assert got["w"] == ["i.loop", "o.loop", "r.loop"]


def test_distinct_arguments_from_the_call_site() -> None:
    """The call sites passed `out` and `in` into distinct objects (`Signature.distinct`)."""
    got = variance("", distinct=frozenset({(0, 1)}))
    assert got["a"] == ["i.loop", "r.loop"]


def test_store_into_the_input_itself() -> None:
    """The middle loop writes `in` (an alias of the load by construction)."""
    got = variance("noalias", store_base="%in")
    assert got["a"] == ["i.loop", "o.loop", "r.loop"]


@pytest.mark.parametrize("name", ["s", "s.next"])
def test_reductions_vary_in_their_loop(name: str) -> None:
    got = variance("noalias")
    assert "i.loop" in got[name]
