"""The shape `enzc.ad.synth.preprocess.prepare` gives a function before AD: loops
with dedicated exits, also where the exit is a landing pad that an `invoke` outside
the loop unwinds to as well (C++ code that may throw in and after a loop, compiled
without optimization: `std::vector::emplace_back` in the loop, `insert` after it,
one cleanup for both)."""

from __future__ import annotations

from enzc.ad.synth.preprocess import prepare
from enzc.ir import parse_module
from enzc.ir.instructions import LandingPad
from enzc.ir.loops import LoopInfo
from enzc.ir.verifier import verify_function

SHARED_PAD = """
declare void @may_throw(i64)
declare void @cleanup()
declare i32 @__gxx_personality_v0(...)

define void @f(i64 %n) personality ptr @__gxx_personality_v0 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %next ]
  invoke void @may_throw(i64 %i) to label %next unwind label %pad
next:
  %i.next = add i64 %i, 1
  %c = icmp eq i64 %i.next, %n
  br i1 %c, label %after, label %loop
after:
  invoke void @may_throw(i64 %n) to label %done unwind label %pad
done:
  ret void
pad:
  %where = phi i64 [ %i, %loop ], [ %n, %after ]
  %lp = landingpad { ptr, i32 } cleanup
  call void @cleanup()
  call void @may_throw(i64 %where)
  resume { ptr, i32 } %lp
}
"""


def test_a_landing_pad_shared_with_code_after_the_loop_is_split_into_two_pads() -> None:
    fn = parse_module(SHARED_PAD).get_function("f")
    copy, _ = prepare(fn)
    verify_function(copy)  # raises: an invoke unwinding to a block without a pad
    (loop,) = list(LoopInfo(copy))
    for exit_block in loop.exit_blocks:
        assert all(loop.contains(p) for p in exit_block.predecessors), exit_block.name
    pads = [b for b in copy.blocks if isinstance(b.first_non_phi, LandingPad)]
    assert sorted(len(b.predecessors) for b in pads) == [1, 1]  # the loop's invoke, the one after
    cleanup = next(b for b in copy.blocks if b.name == "pad")
    assert cleanup.predecessors and not isinstance(cleanup.first_non_phi, LandingPad)
    caught = [p for p in cleanup.phis if {type(v) for v, _ in p.incoming} == {LandingPad}]
    assert len(caught) == 1  # the resumed exception is the one either pad caught
