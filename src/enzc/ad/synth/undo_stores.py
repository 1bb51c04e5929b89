"""Undo and replay of once-executed stores (`MemoryFacts.undone`), combined mode only.

A store S that `memory_facts` chose is made invisible to the reverse pass's
reloads: the forward pass saves the old value just before S; the reverse of S
writes it back (the reverse pass reaches S after the reverses of everything that
ran after S and before those of everything that ran before it); when the reverse
pass ends, the stores are replayed in forward order, so the primal memory the
caller sees is what the forward pass left. A store whose block does not dominate
every return sets a flag after it, and only flagged stores are replayed.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.instructions import Alloca, Instruction, Load, Store
from enzc.ir.types import I1
from enzc.ir.values import ConstantInt

from enzc.ad.synth.gradient_utils import GradientUtils


class UndoLog:
    """The forward pass's saved old values and executed-flags of the undone stores."""

    def __init__(self) -> None:
        self.old: dict[Store, Load] = {}
        self.flags: dict[Store, Alloca] = {}


def save_old_values(gu: GradientUtils) -> UndoLog:
    """Forward pass: load the old value before each undone store (and flag it ran)."""
    log = UndoLog()
    for s in gu.memory.undone:
        ns = gu.new_value(s)
        assert isinstance(ns, Instruction)
        b = IRBuilder()
        b.position_before(ns)
        log.old[s] = b.load(s.value.type, gu.new_value(s.ptr), gu.label(s.value) + ".old", align=s.align)  # type: ignore[assignment]
        if all(gu.dt.block_dominates(s.parent, r) for r in gu.return_blocks):  # type: ignore[arg-type]
            continue
        entry = IRBuilder(gu.new.entry)
        with entry.goto_entry_allocas():
            flag = entry.alloca(I1, name=gu.label(s.value) + ".stored")
            entry.store(ConstantInt(I1, 0), flag)
        b.position_after(ns)
        b.store(ConstantInt(I1, 1), flag)
        log.flags[s] = flag  # type: ignore[assignment]
    return log


def restore_old_value(gu: GradientUtils, log: UndoLog, s: Store) -> None:
    """Reverse of `s` (builder in its reverse block): put the old value back."""
    old = log.old.get(s)
    if old is not None:
        gu.b.store(gu.lookup(old), gu.lookup(gu.new_value(s.ptr)), align=s.align)


def replay_stores(gu: GradientUtils, log: UndoLog) -> None:
    """End of the reverse pass: redo the stores in forward order (flagged ones only
    if they ran). Leaves the builder at the end of the block that continues."""
    b = gu.b
    for s in gu.memory.undone:
        flag = log.flags.get(s)
        cont = None
        if flag is not None:
            redo = new_block(gu.new, f"redo.{gu.label(s.value)}")
            cont = new_block(gu.new, f"redo.{gu.label(s.value)}.done")
            b.cond_br(b.load(I1, flag, "ran"), redo, cont)
            b.position_at_end(redo)
        b.store(gu.lookup(gu.new_value(s.value)), gu.lookup(gu.new_value(s.ptr)), align=s.align)
        if cont is not None:
            b.br(cont)
            b.position_at_end(cont)
