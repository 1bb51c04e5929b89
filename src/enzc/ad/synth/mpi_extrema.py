"""Derivatives of `MPI_Allreduce` with `MPI_MAX` or `MPI_MIN`: the winner takes it.

Each element of the result is one rank's element; its derivative belongs to that
rank alone. Right after the original call every rank marks the elements it would
have won (`send[i] == recv[i]`) and an `MPI_Allreduce(MPI_MIN)` of the ranks'
numbers picks one winner per element (the lowest rank among equal values), kept
as a flag array `won` until the reverse:

    reverse   MPI_Allreduce(drecv, tmp, SUM); drecv = 0; dsend[i] += won[i] ? tmp[i] : 0
    forward   part[i] = won[i] ? dsend[i] : 0; MPI_Allreduce(part, drecv, SUM)

This costs one integer allreduce of the message's length in the forward pass.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, get_or_insert_function, new_block
from enzc.ir.instructions import CallBase
from enzc.ir.libc import declare, define_helper
from enzc.ir.module import Module
from enzc.ir.types import I1, I8, I32, I64, PTR, VOID, FloatType, FunctionType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.mpi import SUM, float_transfer, handle_name, mpi_callee, transfer_of
from enzc.ad.synth.gradient_utils import GradientUtils
from enzc.ad.synth.mpi_buffers import counted_loop, elem_bytes, mpi_handle

EXTREMA = ("ompi_mpi_op_max", "ompi_mpi_op_min")
"""`MPI_MAX` and `MPI_MIN` in Open MPI."""


def is_extremum(call: CallBase) -> bool:
    """An `MPI_Allreduce` of floats with `MPI_MAX` or `MPI_MIN`."""
    t = transfer_of(call)
    return (mpi_callee(call) == "MPI_Allreduce" and t is not None and t.op is not None
            and handle_name(call.args[t.op]) in EXTREMA and float_transfer(call) is not None)


def _allreduce(module: Module) -> Value:
    return get_or_insert_function(module, "MPI_Allreduce", FunctionType(I32, (PTR, PTR, I32, PTR, PTR, PTR)))


def winners(gu: GradientUtils, call: CallBase, b: IRBuilder) -> Value:
    """The `won` flags of `call` (original), computed at `b` right after it."""
    t = transfer_of(call)
    elem = float_transfer(call)
    assert t is not None and elem is not None
    send, recv, count, comm = (gu.new_value(call.args[k]) for k in (t.send, t.recv, t.count, t.comm))  # type: ignore[arg-type]
    return b.call(_owner(gu.module, elem), [send, recv, count, comm], "mpi.won")


def reverse_extremum(gu: GradientUtils, call: CallBase, won: Value) -> None:
    """The reverse of `call` at the builder; `won` is the forward pass's flags."""
    t = transfer_of(call)
    elem = float_transfer(call)
    assert t is not None and elem is not None
    b, m = gu.b, gu.module

    def arg(k: int | None) -> Value:
        assert k is not None
        return gu.lookup(gu.new_value(call.args[k]))

    count = arg(t.count)
    drecv, dsend = gu.lookup(gu.shadow(call.args[t.recv])), gu.lookup(gu.shadow(call.args[t.send]))  # type: ignore[index]
    size = b.mul(b.sext(count, I64, "mpi.n"), ConstantInt(I64, elem_bytes(elem)), "mpi.bytes")
    tmp = b.call(declare(m, "malloc"), [size], "mpi.tmp")
    b.call(_allreduce(m), [drecv, tmp, count, arg(t.datatype), mpi_handle(m, SUM), arg(t.comm)])
    b.call(declare(m, "llvm.memset.p0.i64"), [drecv, ConstantInt(I8, 0), size, ConstantInt(I1, 0)])
    flags = gu.lookup(won)
    b.call(_masked_add(m, elem), [dsend, tmp, flags, count])
    b.call(declare(m, "free"), [tmp])
    b.call(declare(m, "free"), [flags])


def forward_extremum(gu: GradientUtils, call: CallBase, b: IRBuilder) -> None:
    """Forward mode at `call`: the winners' tangents summed into the result's."""
    t = transfer_of(call)
    elem = float_transfer(call)
    assert t is not None and elem is not None
    m = gu.module
    won = winners(gu, call, b)
    count = gu.new_value(call.args[t.count])
    size = b.mul(b.sext(count, I64, "mpi.n"), ConstantInt(I64, elem_bytes(elem)), "mpi.bytes")
    part = b.call(declare(m, "malloc"), [size], "mpi.part")
    b.call(declare(m, "llvm.memset.p0.i64"), [part, ConstantInt(I8, 0), size, ConstantInt(I1, 0)])
    b.call(_masked_add(m, elem), [part, gu.shadow(call.args[t.send]), won, count])  # type: ignore[index]
    b.call(_allreduce(m), [part, gu.shadow(call.args[t.recv]), count, gu.new_value(call.args[t.datatype]),  # type: ignore[index]
                           mpi_handle(m, SUM), gu.new_value(call.args[t.comm])])  # type: ignore[index]
    b.call(declare(m, "free"), [part])
    b.call(declare(m, "free"), [won])


def _owner(module: Module, elem: FloatType) -> Value:
    """`ptr __enzc_mpi_won_<t>(send, recv, n, comm)`: the flags (i32) of the
    elements this rank wins, from an MPI_MIN allreduce of candidate ranks."""
    fn, fresh = define_helper(module, f"__enzc_mpi_won_{elem.kind}", FunctionType(PTR, (PTR, PTR, I32, PTR)),
                              ("send", "recv", "n", "comm"), attrs=("nounwind",))
    if not fresh:
        return fn
    send, recv, n, comm = fn.args
    entry, mark, mark_done, flag, done = (new_block(fn, x) for x in ("entry", "mark", "marked", "flag", "done"))
    b = IRBuilder(entry)
    rank_slot = b.alloca(I32, name="rank")
    rank_fn = get_or_insert_function(module, "MPI_Comm_rank", FunctionType(I32, (PTR, PTR)))
    b.call(rank_fn, [comm, rank_slot])
    rank = b.load(I32, rank_slot, "r")
    bytes_ = b.add(b.mul(b.sext(n, I64, "n64"), ConstantInt(I64, 4), "bytes"), ConstantInt(I64, 4), "bytes1")
    mine = b.call(declare(module, "malloc"), [bytes_], "mine")
    won = b.call(declare(module, "malloc"), [bytes_], "won")
    any_ = b.icmp("sgt", n, ConstantInt(I32, 0), "any")
    b.cond_br(any_, mark, mark_done)
    b.position_at_end(mark)  # mine[i] = rank if this rank's element is the result, else INT_MAX
    i = b.phi(I32, [(ConstantInt(I32, 0), entry)], "i")
    same = b.fcmp("oeq", b.load(elem, b.gep(elem, send, [i], "s.at"), "s"),
                  b.load(elem, b.gep(elem, recv, [i], "r.at"), "res"), "same")
    b.store(b.select(same, rank, ConstantInt(I32, 2**31 - 1), "cand"), b.gep(I32, mine, [i], "m.at"))
    nxt = b.add(i, ConstantInt(I32, 1), "next")
    i.add_incoming(nxt, mark)
    b.cond_br(b.icmp("slt", nxt, n, "more"), mark, mark_done)
    b.position_at_end(mark_done)
    b.call(_allreduce(module), [mine, won, n, mpi_handle(module, "ompi_mpi_int"), mpi_handle(module, "ompi_mpi_op_min"), comm])
    b.cond_br(any_, flag, done)
    b.position_at_end(flag)  # won[i] = (winner == rank)
    j = b.phi(I32, [(ConstantInt(I32, 0), mark_done)], "j")
    at = b.gep(I32, won, [j], "w.at")
    b.store(b.zext(b.icmp("eq", b.load(I32, at, "w"), rank, "mine"), I32, "flag"), at)
    nxt_j = b.add(j, ConstantInt(I32, 1), "next")
    j.add_incoming(nxt_j, flag)
    b.cond_br(b.icmp("slt", nxt_j, n, "more"), flag, done)
    b.position_at_end(done)
    b.call(declare(module, "free"), [mine])
    b.ret(won)
    return fn


def _masked_add(module: Module, elem: FloatType) -> Value:
    """`void __enzc_mpi_masked_add_<t>(dst, src, won, n)`: `dst[i] += src[i]` where `won[i]`."""
    fn, fresh = define_helper(module, f"__enzc_mpi_masked_add_{elem.kind}", FunctionType(VOID, (PTR, PTR, PTR, I32)),
                              ("dst", "src", "won", "n"), attrs=("nounwind",))
    if not fresh:
        return fn
    dst, src, won, n = fn.args

    def masked_add(b: IRBuilder, i: Value) -> None:
        at = b.gep(elem, dst, [i], "d.at")
        add = b.load(elem, b.gep(elem, src, [i], "s.at"), "s")
        keep = b.icmp("ne", b.load(I32, b.gep(I32, won, [i], "w.at"), "w"), ConstantInt(I32, 0), "won")
        old = b.load(elem, at, "d")
        b.store(b.select(keep, b.fadd(old, add, "sum"), old, "new"), at)

    counted_loop(fn, n, masked_add)
    return fn
