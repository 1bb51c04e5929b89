"""Helpers the MPI derivatives share: Open MPI handles, element-wise adds."""

from __future__ import annotations

from collections.abc import Callable

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.libc import define_helper
from enzc.ir.module import Function, Module
from enzc.ir.types import I8, I32, PTR, VOID, ArrayType, FloatType, FunctionType
from enzc.ir.values import ConstantInt, Value


def mpi_handle(module: Module, name: str) -> Value:
    """An Open MPI handle (`@ompi_mpi_op_sum`): the program's declaration, or a new
    external one (its type does not matter: only its address is used)."""
    got = module.get_global(name)
    if got is not None:
        return got
    gv = module.add_global(name, ArrayType(0, I8))
    gv.linkage.words = ["external"]
    return gv


def elem_bytes(t: FloatType) -> int:
    return 8 if t.kind == "double" else 4


def adder(module: Module, elem: FloatType) -> Value:
    """`void __enzc_mpi_add_<t>(ptr dst, ptr src, i32 n)`: `dst[i] += src[i]`, i < n."""
    fn, fresh = define_helper(module, f"__enzc_mpi_add_{elem.kind}", FunctionType(VOID, (PTR, PTR, I32)),
                              ("dst", "src", "n"), attrs=("nounwind",))
    if not fresh:
        return fn
    dst, src, n = fn.args

    def add(b: IRBuilder, i: Value) -> None:
        at = b.gep(elem, dst, [i], "d.at")
        b.store(b.fadd(b.load(elem, at, "d"), b.load(elem, b.gep(elem, src, [i], "s.at"), "s"), "sum"), at)

    counted_loop(fn, n, add)
    return fn


def counted_loop(fn: Function, n: Value, body: Callable[[IRBuilder, Value], None]) -> None:
    """Give the empty `fn` the body `for (i32 i = 0; i < n; i++) body(b, i); ret void`
    (`body` emits straight-line code at `b`)."""
    entry, loop, done = new_block(fn, "entry"), new_block(fn, "loop"), new_block(fn, "done")
    b = IRBuilder(entry)
    b.cond_br(b.icmp("sgt", n, ConstantInt(I32, 0), "any"), loop, done)
    b.position_at_end(loop)
    i = b.phi(I32, [(ConstantInt(I32, 0), entry)], "i")
    body(b, i)
    nxt = b.add(i, ConstantInt(I32, 1), "next")
    i.add_incoming(nxt, loop)
    b.cond_br(b.icmp("slt", nxt, n, "more"), loop, done)
    b.position_at_end(done)
    b.ret_void()
