"""Use-def edits keep use lists exact: replace_all_uses_with, erase, insert
before/after, operand changes, block splitting and function cloning."""

import pytest

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import BinaryOp, Phi
from enzc.ir.module import Module
from enzc.ir.transforms import clone_function, remove_unreachable_blocks, split_block
from enzc.ir.types import DOUBLE, I1, FunctionType
from enzc.ir.values import ConstantFP
from enzc.ir.verifier import verify_function


def diamond():
    """double f(i1 c, double x): c ? x*x : x+x, joined by a phi, then +1."""
    m = Module()
    fn = m.add_function("f", FunctionType(DOUBLE, (I1, DOUBLE)))
    c, x = fn.args
    c.name, x.name = "c", "x"
    fn.blocks = []
    b = IRBuilder(fn.append_block("entry"))
    t, e, j = b.append_block("then"), b.append_block("else"), b.append_block("join")
    b.cond_br(c, t, e)
    b.position_at_end(t)
    sq = b.fmul(x, x, "sq")
    b.br(j)
    b.position_at_end(e)
    dbl = b.fadd(x, x, "dbl")
    b.br(j)
    b.position_at_end(j)
    phi = b.phi(DOUBLE, [(sq, t), (dbl, e)], "r")
    out = b.fadd(phi, ConstantFP(DOUBLE, 1.0), "out")
    b.ret(out)
    verify_function(fn)
    return m, fn, dict(c=c, x=x, t=t, e=e, j=j, sq=sq, dbl=dbl, phi=phi, out=out)


def uses_of(v):
    return [(u.user, u.index) for u in v.uses]


def test_replace_all_uses_with_moves_every_use():
    m, fn, n = diamond()
    x, sq, dbl = n["x"], n["sq"], n["dbl"]
    assert uses_of(x) == [(sq, 0), (sq, 1), (dbl, 0), (dbl, 1)]
    assert x.users == [sq, dbl] and x.num_uses == 4
    sq.replace_all_uses_with(x)
    assert sq.num_uses == 0 and n["phi"].incoming == [(x, n["t"]), (dbl, n["e"])]
    assert uses_of(x)[-1] == (n["phi"], 0)
    dbl.replace_all_uses_with(dbl)  # no-op
    assert uses_of(dbl) == [(n["phi"], 2)]
    verify_function(fn)


def test_replace_block_retargets_branches_and_phis():
    m, fn, n = diamond()
    b = IRBuilder(fn.append_block("then2"))
    y = b.fmul(n["x"], n["x"], "y")
    b.br(n["j"])
    n["phi"].set_operand(0, y)
    n["t"].replace_all_uses_with(fn.blocks[-1])
    assert fn.entry.successors == [fn.blocks[-1], n["e"]]
    assert n["phi"].incoming[0] == (y, fn.blocks[-1]) and n["t"].num_uses == 0
    assert set(n["j"].predecessors) == {n["t"], n["e"], fn.blocks[-1]}  # %then is dead now
    assert remove_unreachable_blocks(fn) == 1
    assert n["j"].predecessors == [n["e"], fn.blocks[-1]] and n["sq"].parent is None
    verify_function(fn)


def test_erase_requires_no_uses_and_releases_operands():
    m, fn, n = diamond()
    with pytest.raises(ValueError, match="still has 1 uses"):
        n["out"].erase()
    ret = n["j"].terminator
    ret.set_operand(0, n["phi"])
    n["out"].erase()
    assert n["out"].parent is None and n["out"].operands == ()
    assert uses_of(n["phi"]) == [(ret, 0)]
    verify_function(fn)


def test_erase_hands_debug_records_to_the_next_instruction():
    """As LLVM does: the records say where variables change from that point on."""
    from enzc.ir.instructions import DebugRecord
    from enzc.ir.metadata import MDRaw
    from enzc.ir.types import METADATA
    from enzc.ir.values import MetadataOperand

    def record(value):
        return DebugRecord("value", [value, MetadataOperand(METADATA, MDRaw("!7")),
                                     MetadataOperand(METADATA, MDRaw("!DIExpression()"))])

    m, fn, n = diamond()
    ret = n["j"].terminator
    ret.set_operand(0, n["phi"])
    kept, last = record(n["phi"]), record(n["x"])
    ret.debug_records.append(last)
    n["out"].debug_records.append(kept)
    n["out"].erase()
    assert ret.debug_records == [kept, last] and uses_of(n["phi"])[-1] == (kept, 0)
    b = IRBuilder(n["j"])
    ret.erase()  # at the block's end the records go with it
    assert uses_of(n["phi"]) == [] and n["x"].users == [n["sq"], n["dbl"]]
    b.ret(n["phi"])
    verify_function(fn)


def test_insert_before_after_and_move():
    m, fn, n = diamond()
    j = n["j"]
    a = BinaryOp("fmul", n["phi"], n["phi"])
    a.name = "a"
    a.insert_after(n["phi"])
    z = BinaryOp("fsub", a, n["phi"])
    z.name = "z"
    z.insert_before(n["out"])
    assert [i.name for i in j.instructions] == ["r", "a", "z", "out", None]
    z.remove_from_parent()
    assert z.parent is None and z.operands == (a, n["phi"]) and (z, 0) in uses_of(a)
    z.insert_after(n["out"])
    assert j.instructions[3] is z
    verify_function(fn)


def test_phi_incoming_edits_update_uses():
    m, fn, n = diamond()
    phi: Phi = n["phi"]
    phi.remove_incoming(n["e"])
    assert phi.incoming == [(n["sq"], n["t"])] and n["dbl"].num_uses == 0
    assert (phi, 3) not in uses_of(n["e"])
    phi.add_incoming(n["dbl"], n["e"])
    assert phi.incoming_value_for(n["e"]) is n["dbl"]
    verify_function(fn)


def test_split_block_moves_instructions_and_keeps_uses():
    m, fn, n = diamond()
    tail = split_block(n["j"], n["out"], "tail")
    assert [i.name for i in n["j"].instructions] == ["r", None] and n["j"].successors == [tail]
    assert n["out"].parent is tail and tail.instructions[-1].opcode == "ret"
    assert fn.blocks.index(tail) == fn.blocks.index(n["j"]) + 1
    assert (n["out"], 0) in uses_of(n["phi"])
    verify_function(fn)


def test_clone_function_copies_without_sharing():
    m, fn, n = diamond()
    g, vmap = clone_function(fn, "f.clone", m)
    assert m.functions["f.clone"] is g and [b.name for b in g.blocks] == ["entry", "then", "else", "join"]
    new_sq, new_phi = vmap[n["sq"]], vmap[n["phi"]]
    assert new_sq is not n["sq"] and new_sq.operands == (g.args[1], g.args[1])
    assert new_phi.incoming == [(new_sq, vmap[n["t"]]), (vmap[n["dbl"]], vmap[n["e"]])]
    assert n["x"].users == [n["sq"], n["dbl"]]  # the original's uses are untouched
    verify_function(fn)
    verify_function(g)
