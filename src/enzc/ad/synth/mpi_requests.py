"""Derivatives of non-blocking MPI transfers: `MPI_Isend`, `MPI_Irecv`, and their
completion by `MPI_Wait`/`MPI_Waitall`.

A request's shadow slot (the request variable gets one, like every pointer
argument of an active call) holds what the derivative needs of its transfer.

Reverse mode. In the forward pass, after `MPI_Isend(b, n, type, peer, tag, comm,
&req)` (or `MPI_Irecv`) a record `{db, tmp, n, type, peer, tag, comm, rreq,
is_send}` is put in `req`'s shadow slot; `MPI_Wait(&req)` reads it back (a
forward value the reverse pass finds on its tape), `MPI_Waitall` copies its
records into one array. In the reverse pass, which meets the wait first:

    reverse of MPI_Wait      start the reverse transfer: MPI_Irecv(tmp, peer, tag)
                             for a send, MPI_Isend(db, peer, tag) for a receive
    reverse of MPI_Isend     MPI_Wait(rreq); db += tmp
    reverse of MPI_Irecv     MPI_Wait(rreq); db = 0

Forward mode: the tangent travels in a second transfer whose request is kept in
the request's shadow slot, and each wait also waits for the shadow requests.
A non-blocking transfer of other data with a shadowed request gets an empty
record (reverse mode) or `MPI_REQUEST_NULL` (forward mode) in its shadow slot.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, get_or_insert_function, new_block
from enzc.ir.instructions import CallBase
from enzc.ir.libc import declare, define_helper
from enzc.ir.module import Module
from enzc.ir.types import I1, I8, I32, I64, PTR, VOID, FloatType, FunctionType, StructType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.mpi import WAITS, float_transfer, mpi_callee, transfer_of
from enzc.ad.synth.gradient_utils import GradientUtils
from enzc.ad.synth.mpi_buffers import adder, elem_bytes, mpi_handle

RECORD = StructType((PTR, PTR, I32, PTR, I32, I32, PTR, PTR, I32))
"""{db, tmp, count, datatype, peer, tag, comm, reverse request, is_send}."""
DB, TMP, COUNT, DTYPE, PEER, TAG, COMM, RREQ, IS_SEND = range(9)
REQUEST_NULL = "ompi_request_null"
"""`MPI_REQUEST_NULL` in Open MPI: the address of this global."""

_SIGNATURES = {
    "MPI_Isend": (PTR, I32, PTR, I32, I32, PTR, PTR),
    "MPI_Irecv": (PTR, I32, PTR, I32, I32, PTR, PTR),
    "MPI_Wait": (PTR, PTR),
    "MPI_Waitall": (I32, PTR, PTR),
}


def _mpi(module: Module, name: str) -> Value:
    return get_or_insert_function(module, name, FunctionType(I32, _SIGNATURES[name]))


def is_nonblocking(call: CallBase) -> bool:
    t = transfer_of(call)
    return t is not None and t.request is not None


def is_wait(call: CallBase) -> bool:
    return mpi_callee(call) in WAITS


def _request_shadowed(gu: GradientUtils, call: CallBase) -> bool:
    name = mpi_callee(call)
    if name in WAITS:
        return gu.activity.has_shadow(call.args[WAITS[name][1]])
    t = transfer_of(call)
    return t is not None and t.request is not None and gu.activity.has_shadow(call.args[t.request])


# -- reverse mode: forward pass ---------------------------------------------------------------


def record_request(gu: GradientUtils, call: CallBase) -> None:
    """After non-blocking transfer `call` (original), its record in the request's
    shadow slot; after a wait, the records read back (`gu.mpi_records`)."""
    if not (is_nonblocking(call) or is_wait(call)) or not _request_shadowed(gu, call):
        return
    b = IRBuilder()
    b.position_after(gu.new_value(call))  # type: ignore[arg-type]
    m = gu.module
    name = mpi_callee(call)
    if name in WAITS:
        count_at, reqs_at = WAITS[name]
        b.position_before(gu.new_value(call))  # type: ignore[arg-type]
        slot = gu.shadow(call.args[reqs_at])
        if count_at is None:
            gu.mpi_records[call] = b.load(PTR, slot, "mpi.rec")
        else:
            bytes_ = b.mul(b.sext(gu.new_value(call.args[count_at]), I64, "n"), ConstantInt(I64, 8), "mpi.bytes")
            recs = b.call(declare(m, "malloc"), [bytes_], "mpi.recs")
            b.call(declare(m, "llvm.memcpy.p0.p0.i64"), [recs, slot, bytes_, ConstantInt(I1, 0)])
            gu.mpi_records[call] = recs
        return
    t = transfer_of(call)
    elem = float_transfer(call)
    assert t is not None and t.request is not None
    if elem is None:
        b.store(b.const_null(PTR), gu.shadow(call.args[t.request]))  # no record: nothing to reverse
        return
    sending = t.send is not None
    buf = call.args[t.send if sending else t.recv]  # type: ignore[index]
    count = gu.new_value(call.args[t.count])
    rec = b.call(declare(m, "malloc"), [ConstantInt(I64, gu.layout.alloc_size_of(RECORD))], "mpi.rec")
    tmp: Value = b.const_null(PTR)
    if sending:
        size = b.mul(b.sext(count, I64, "n"), ConstantInt(I64, elem_bytes(elem)), "mpi.bytes")
        tmp = b.call(declare(m, "malloc"), [size], "mpi.tmp")
    fields = {DB: gu.shadow(buf), TMP: tmp, COUNT: count, DTYPE: gu.new_value(call.args[t.datatype]),
              PEER: gu.new_value(call.args[t.peer]), TAG: gu.new_value(call.args[t.tag]),  # type: ignore[index]
              COMM: gu.new_value(call.args[t.comm]), IS_SEND: ConstantInt(I32, int(sending))}  # type: ignore[index]
    for k, v in fields.items():
        b.store(v, b.gep(RECORD, rec, [0, k], "mpi.field"))
    b.store(rec, gu.shadow(call.args[t.request]))
    gu.mpi_records[call] = rec


# -- reverse mode: reverse pass ---------------------------------------------------------------


def reverse_request(gu: GradientUtils, call: CallBase) -> bool:
    """The reverse of a wait or a non-blocking transfer at the builder; False if
    `call` is neither or was not recorded."""
    rec = gu.mpi_records.get(call)
    if rec is None:
        return False
    b, m = gu.b, gu.module
    name = mpi_callee(call)
    if name == "MPI_Wait":
        b.call(_start(m), [gu.lookup(rec)])
    elif name == "MPI_Waitall":
        count = gu.lookup(gu.new_value(call.args[WAITS["MPI_Waitall"][0]]))  # type: ignore[index]
        b.call(_start_all(m), [count, gu.lookup(rec)])
    else:
        elem = float_transfer(call)
        assert elem is not None
        b.call(_finish(m, elem), [gu.lookup(rec)])
    return True


def _field(b: IRBuilder, rec: Value, k: int, name: str) -> Value:
    return b.load(RECORD.elements[k], b.gep(RECORD, rec, [0, k], name + ".at"), name)


def _start(module: Module) -> Value:
    """`__enzc_mpi_reverse_start(rec)`: the reverse transfer of a record, started."""
    fn, fresh = define_helper(module, "__enzc_mpi_reverse_start", FunctionType(VOID, (PTR,)), ("rec",),
                              attrs=("nounwind",))
    if not fresh:
        return fn
    rec = fn.args[0]
    entry, run, send, recv, done = (new_block(fn, n) for n in ("entry", "run", "send", "recv", "done"))
    b = IRBuilder(entry)
    b.cond_br(b.icmp("eq", rec, b.const_null(PTR), "none"), done, run)
    b.position_at_end(run)
    f = {k: _field(b, rec, k, n) for k, n in ((DB, "db"), (TMP, "tmp"), (COUNT, "n"), (DTYPE, "type"),
                                            (PEER, "peer"), (TAG, "tag"), (COMM, "comm"), (IS_SEND, "is.send"))}
    rreq = b.gep(RECORD, rec, [0, RREQ], "rreq")
    b.cond_br(b.icmp("ne", f[IS_SEND], ConstantInt(I32, 0), "sent"), send, recv)
    rest = [f[COUNT], f[DTYPE], f[PEER], f[TAG], f[COMM], rreq]
    b.position_at_end(send)  # the forward pass sent: its adjoint comes back
    b.call(_mpi(module, "MPI_Irecv"), [f[TMP], *rest])
    b.br(done)
    b.position_at_end(recv)  # the forward pass received: send the adjoint back
    b.call(_mpi(module, "MPI_Isend"), [f[DB], *rest])
    b.br(done)
    b.position_at_end(done)
    b.ret_void()
    return fn


def _start_all(module: Module) -> Value:
    """`__enzc_mpi_reverse_start_all(n, recs)`: `_start` for each record, then free."""
    fn, fresh = define_helper(module, "__enzc_mpi_reverse_start_all", FunctionType(VOID, (I32, PTR)),
                              ("n", "recs"), attrs=("nounwind",))
    if not fresh:
        return fn
    n, recs = fn.args
    entry, loop, done = new_block(fn, "entry"), new_block(fn, "loop"), new_block(fn, "done")
    b = IRBuilder(entry)
    b.cond_br(b.icmp("sgt", n, ConstantInt(I32, 0), "any"), loop, done)
    b.position_at_end(loop)
    i = b.phi(I32, [(ConstantInt(I32, 0), entry)], "i")
    b.call(_start(module), [b.load(PTR, b.gep(PTR, recs, [i], "rec.at"), "rec")])
    nxt = b.add(i, ConstantInt(I32, 1), "next")
    i.add_incoming(nxt, loop)
    b.cond_br(b.icmp("slt", nxt, n, "more"), loop, done)
    b.position_at_end(done)
    b.call(declare(module, "free"), [recs])
    b.ret_void()
    return fn


def _finish(module: Module, elem: FloatType) -> Value:
    """`__enzc_mpi_reverse_finish_<t>(rec)`: wait for the reverse transfer, add the
    received adjoint (a send) or clear the sent one (a receive), free the record."""
    fn, fresh = define_helper(module, f"__enzc_mpi_reverse_finish_{elem.kind}", FunctionType(VOID, (PTR,)),
                              ("rec",), attrs=("nounwind",))
    if not fresh:
        return fn
    rec = fn.args[0]
    entry, run, send, recv, done = (new_block(fn, n) for n in ("entry", "run", "send", "recv", "done"))
    b = IRBuilder(entry)
    b.cond_br(b.icmp("eq", rec, b.const_null(PTR), "none"), done, run)
    b.position_at_end(run)
    b.call(_mpi(module, "MPI_Wait"), [b.gep(RECORD, rec, [0, RREQ], "rreq"), b.const_null(PTR)])
    db, tmp, count = _field(b, rec, DB, "db"), _field(b, rec, TMP, "tmp"), _field(b, rec, COUNT, "n")
    b.cond_br(b.icmp("ne", _field(b, rec, IS_SEND, "is.send"), ConstantInt(I32, 0), "sent"), send, recv)
    b.position_at_end(send)
    b.call(adder(module, elem), [db, tmp, count])
    b.call(declare(module, "free"), [tmp])
    b.br(done)
    b.position_at_end(recv)
    size = b.mul(b.sext(count, I64, "n64"), ConstantInt(I64, elem_bytes(elem)), "bytes")
    b.call(declare(module, "llvm.memset.p0.i64"), [db, ConstantInt(I8, 0), size, ConstantInt(I1, 0)])
    b.br(done)
    b.position_at_end(done)
    b.call(declare(module, "free"), [rec])
    b.ret_void()
    return fn


# -- forward mode -----------------------------------------------------------------------------


def forward_request(gu: GradientUtils, call: CallBase, after: IRBuilder) -> bool:
    """Forward mode at a non-blocking transfer or a wait (builder `after` is right
    after the original): the tangent's transfer, or the wait for it."""
    if not _request_shadowed(gu, call):
        return is_nonblocking(call) or is_wait(call)
    name = mpi_callee(call)
    m = gu.module
    if name in WAITS:
        count_at, reqs_at = WAITS[name]
        shadow = gu.shadow(call.args[reqs_at])
        if count_at is None:
            after.call(_mpi(m, "MPI_Wait"), [shadow, after.const_null(PTR)])
        else:
            after.call(_mpi(m, "MPI_Waitall"), [gu.new_value(call.args[count_at]), shadow, after.const_null(PTR)])
        return True
    t = transfer_of(call)
    assert t is not None and t.request is not None
    if float_transfer(call) is None:
        after.store(mpi_handle(m, REQUEST_NULL), gu.shadow(call.args[t.request]))
        return True
    args = [gu.shadow(a) if k in (t.send, t.recv, t.request) else gu.new_value(a) for k, a in enumerate(call.args)]
    nc = gu.new_value(call)
    assert isinstance(nc, CallBase)
    after.call(nc.callee, args, fn_type=nc.function_type)
    return True
