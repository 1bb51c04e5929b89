"""The reverse-mode engine on small hand-built functions: every derivative passes our
verifier, and the cache decisions are the intended ones (recompute what is pure or
reads unwritten memory, cache what is overwritten per iteration, exact-size
allocations when trip counts are known, growing ones otherwise)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from enzc.ad.analysis.activity import ArgActivity
from enzc.ad.synth.derivatives import DerivativeCache
from enzc.ad.synth.signature import Signature
from enzc.ir.builder import IRBuilder, get_or_insert_function, new_block
from enzc.ir.datalayout import DataLayout
from enzc.ir.instructions import Call
from enzc.ir.module import Function, Module
from enzc.ir.types import DOUBLE, I64, PTR, FunctionType
from enzc.ir.values import ConstantFP, ConstantInt
from enzc.ir.verifier import verify_function

DL = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
OUT, CONST, DUP = ArgActivity.OUT, ArgActivity.CONST, ArgActivity.DUP


def C(v: int) -> ConstantInt:
    return ConstantInt(I64, v)


def F(v: float) -> ConstantFP:
    return ConstantFP(DOUBLE, v)


def new_module() -> Module:
    return Module(datalayout=DL, triple="x86_64-pc-linux-gnu")


def define(m: Module, name: str, params: tuple, names: str, blocks: str) -> tuple[Function, list]:
    fn = m.add_function(name, FunctionType(DOUBLE, params))
    for a, n in zip(fn.args, names.split()):
        a.name = n
    fn.blocks = []
    return fn, [new_block(fn, b) for b in blocks.split()]


def square(m: Module) -> Function:
    fn, (entry,) = define(m, "square", (DOUBLE,), "x", "entry")
    b = IRBuilder(entry)
    b.ret(b.fmul(fn.args[0], fn.args[0], "mul"))
    return fn


def relu3(m: Module) -> Function:
    """x > 0 ? pow(x, 3) : 0, as an if-then diamond with a phi."""
    fn, (entry, pos, done) = define(m, "relu3", (DOUBLE,), "x", "entry pos done")
    pow_ = get_or_insert_function(m, "llvm.pow.f64", FunctionType(DOUBLE, (DOUBLE, DOUBLE)))
    x = fn.args[0]
    b = IRBuilder(entry)
    b.cond_br(b.fcmp("ogt", x, F(0.0), "c"), pos, done)
    b.position_at_end(pos)
    p = b.call(pow_, [x, F(3.0)], "p")
    b.br(done)
    b.position_at_end(done)
    b.ret(b.phi(DOUBLE, [(p, pos), (F(0.0), entry)], "r"))
    return fn


def sum_squares(m: Module) -> Function:
    """s = sum a[i]*a[i]*c over a rotated loop; a is never written."""
    fn, (entry, loop, exit_) = define(m, "sumsq", (PTR, I64, DOUBLE), "a n c", "entry loop exit")
    a, n, c = fn.args
    b = IRBuilder(entry)
    b.br(loop)
    b.position_at_end(loop)
    i = b.phi(I64, [(C(0), entry)], "i")
    s = b.phi(DOUBLE, [(F(0.0), entry)], "s")
    v = b.load(DOUBLE, b.gep(DOUBLE, a, [i], "p", inbounds=True), "v")
    s2 = b.fadd(s, b.fmul(b.fmul(v, v, "sq"), c, "t"), "s2")
    i2 = b.add(i, C(1), "i2")
    i.add_incoming(i2, loop)
    s.add_incoming(s2, loop)
    b.cond_br(b.icmp("slt", i2, n, "cmp"), loop, exit_)
    b.position_at_end(exit_)
    b.ret(s2)
    return fn


def overwritten(m: Module) -> Function:
    """x = sin(x) * x, n times: the loop-carried x must be cached per iteration."""
    fn, (entry, loop, exit_) = define(m, "iter", (DOUBLE, I64), "x n", "entry loop exit")
    sin = get_or_insert_function(m, "sin", FunctionType(DOUBLE, (DOUBLE,)))
    x, n = fn.args
    b = IRBuilder(entry)
    b.br(loop)
    b.position_at_end(loop)
    i = b.phi(I64, [(C(0), entry)], "i")
    xv = b.phi(DOUBLE, [(x, entry)], "xv")
    x2 = b.fmul(b.call(sin, [xv], "s"), xv, "x2")
    i2 = b.add(i, C(1), "i2")
    i.add_incoming(i2, loop)
    xv.add_incoming(x2, loop)
    b.cond_br(b.icmp("slt", i2, n, "c"), loop, exit_)
    b.position_at_end(exit_)
    b.ret(x2)
    return fn


def while_loop(m: Module) -> Function:
    """while (x < 100) x = x*x*0.5 + c: the trip count depends on the data."""
    fn, (entry, loop, body, exit_) = define(m, "grow", (DOUBLE, DOUBLE), "x c", "entry loop body exit")
    x, c = fn.args
    b = IRBuilder(entry)
    b.br(loop)
    b.position_at_end(loop)
    xv = b.phi(DOUBLE, [(x, entry)], "xv")
    b.cond_br(b.fcmp("olt", xv, F(100.0), "lt"), body, exit_)
    b.position_at_end(body)
    x2 = b.fadd(b.fmul(b.fmul(xv, xv, "sq"), F(0.5), "h"), c, "x2")
    xv.add_incoming(x2, body)
    b.br(loop)
    b.position_at_end(exit_)
    b.ret(xv)
    return fn


def triangular(m: Module) -> Function:
    """for i<n { p=1; for j<=i { p = p*a[j]+1 } s += p }: inner count depends on i."""
    fn, (entry, outer, inner, latch, exit_) = define(m, "tri", (PTR, I64), "a n", "entry outer inner latch exit")
    a, n = fn.args
    b = IRBuilder(entry)
    b.br(outer)
    b.position_at_end(outer)
    i = b.phi(I64, [(C(0), entry)], "i")
    s = b.phi(DOUBLE, [(F(0.0), entry)], "s")
    b.br(inner)
    b.position_at_end(inner)
    j = b.phi(I64, [(C(0), outer)], "j")
    p = b.phi(DOUBLE, [(F(1.0), outer)], "p")
    aj = b.load(DOUBLE, b.gep(DOUBLE, a, [j], "pa", inbounds=True), "aj")
    p2 = b.fadd(b.fmul(p, aj, "pm"), F(1.0), "p2")
    j2 = b.add(j, C(1), "j2")
    j.add_incoming(j2, inner)
    p.add_incoming(p2, inner)
    b.cond_br(b.icmp("sle", j2, i, "cj"), inner, latch)
    b.position_at_end(latch)
    s2 = b.fadd(s, p2, "s2")
    i2 = b.add(i, C(1), "i2")
    i.add_incoming(i2, latch)
    s.add_incoming(s2, latch)
    b.cond_br(b.icmp("slt", i2, n, "ci"), outer, exit_)
    b.position_at_end(exit_)
    b.ret(s2)
    return fn


def early_break(m: Module) -> Function:
    """for i<n { x *= a[i]; if (x > 10) break; }: two exits."""
    fn, (entry, loop, cont, exit_) = define(m, "brk", (PTR, I64, DOUBLE), "a n x", "entry loop cont exit")
    a, n, x = fn.args
    b = IRBuilder(entry)
    b.br(loop)
    b.position_at_end(loop)
    i = b.phi(I64, [(C(0), entry)], "i")
    xv = b.phi(DOUBLE, [(x, entry)], "xv")
    x2 = b.fmul(xv, b.load(DOUBLE, b.gep(DOUBLE, a, [i], "pa", inbounds=True), "ai"), "x2")
    b.cond_br(b.fcmp("ogt", x2, F(10.0), "big"), exit_, cont)
    b.position_at_end(cont)
    i2 = b.add(i, C(1), "i2")
    i.add_incoming(i2, cont)
    xv.add_incoming(x2, cont)
    b.cond_br(b.icmp("slt", i2, n, "c"), loop, exit_)
    b.position_at_end(exit_)
    b.ret(x2)
    return fn


@dataclass(frozen=True)
class Case:
    build: object
    args: tuple[ArgActivity, ...]
    caches: int
    """Values cached in loops: the number the design asks for."""
    blocks: int
    """Fixed-size caches allocated at one preheader share one block of the tape
    stack (`__enzc_tape_alloc`); per-iteration chunks come from an arena."""
    mallocs: int
    """A growing cache mallocs its data (its header is on the stack)."""
    arena: bool = False


CASES = {
    "square": Case(square, (OUT,), 0, 0, 0),
    "relu3": Case(relu3, (OUT,), 0, 0, 0),
    "sum_squares": Case(sum_squares, (DUP, CONST, OUT), 0, 0, 0),
    "overwritten": Case(overwritten, (OUT, CONST), 2, 1, 0),
    "while_loop": Case(while_loop, (OUT, OUT), 1, 0, 1),
    "triangular": Case(triangular, (DUP, CONST), 2, 1, 0, arena=True),
    "early_break": Case(early_break, (DUP, CONST, OUT), 1, 1, 0),
}


def derive(case: Case):
    m = new_module()
    fn = case.build(m)  # type: ignore[operator]
    cache = DerivativeCache(m, DataLayout.parse(DL))
    d = cache.reverse(fn, Signature(case.args, True))
    return m, fn, d, cache


@pytest.mark.parametrize("name", sorted(CASES))
def test_derivative_verifies(name: str) -> None:
    _, fn, d, _ = derive(CASES[name])
    verify_function(d.function)
    assert d.function.name == f"diffe_{fn.name}"
    verify_function(fn)  # the user's function is left as it was


@pytest.mark.parametrize("name", sorted(CASES))
def test_cache_decisions(name: str) -> None:
    case = CASES[name]
    _, _, d, cache = derive(case)
    stats = d.caches
    assert stats == case.caches
    called = [i.called_function.name for i in d.function.instructions()
              if isinstance(i, Call) and i.called_function is not None]
    assert called.count("__enzc_tape_alloc") == called.count("__enzc_tape_free") == case.blocks
    assert called.count("malloc") == called.count("free") == case.mallocs
    assert called.count("__enzc_arena_alloc") == called.count("__enzc_arena_free") == int(case.arena)


def test_signature_memoized() -> None:
    m = new_module()
    fn = square(m)
    cache = DerivativeCache(m, DataLayout.parse(DL))
    a = cache.reverse(fn, Signature((OUT,), True))
    b = cache.reverse(fn, Signature((OUT,), True))
    c = cache.reverse(fn, Signature((CONST,), True))
    assert a is b and a.function is not c.function
    assert c.function.function_type.ret.__class__.__name__ == "VoidType"


def test_gradient_signature_shape() -> None:
    _, _, d, _ = derive(CASES["sum_squares"])
    assert [str(t) for t in d.function.function_type.params] == ["ptr", "ptr", "i64", "double"]
    assert str(d.function.function_type.ret) == "double"
