"""Derivatives of MPI transfers (`analysis.mpi`): adjoints travel the other way.

Reverse mode, at the reverse of each transfer (`d` is a buffer's shadow, `tmp` a
heap block of `count` elements):

    MPI_Send(b, dest, tag)        MPI_Recv(tmp, dest, tag);  db += tmp
    MPI_Recv(b, src, tag)         MPI_Send(db, src, tag);    db = 0
    MPI_Bcast(b, root)            MPI_Reduce(db, tmp, SUM, root); db = (rank == root) ? tmp : 0
    MPI_Reduce(s, r, SUM, root)   tmp = (rank == root) ? dr : 0; dr = 0 on root;
                                  MPI_Bcast(tmp, root); ds += tmp
    MPI_Allreduce(s, r, SUM)      MPI_Allreduce(dr, tmp, SUM); dr = 0; ds += tmp

with the same datatype, tag and communicator. The reverse pass runs the program's
transfers in the opposite order on every rank, so a pair that matched forward
matches backward. Forward mode sends the tangents along: each transfer is
repeated on the shadow buffers right after the original.

Not differentiated (a located compile-time error when they move floats):
`MPI_ANY_SOURCE`/`MPI_ANY_TAG` receives, `MPI_IN_PLACE`, reductions other than
`MPI_SUM` (but `MPI_MAX`/`MPI_MIN` of `MPI_Allreduce`, `mpi_extrema`), datatypes other than `MPI_DOUBLE`/`MPI_FLOAT` on differentiable data,
and every other MPI call on differentiable data or naming `MPI_DOUBLE`/`MPI_FLOAT`
(`MPI_Sendrecv`, `MPI_Test`, ...: a receive of doubles into a buffer the AD does
not track would otherwise leave its sender's reverse waiting). Non-blocking
transfers and their waits are `mpi_requests`'.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, get_or_insert_function
from enzc.ir.instructions import CallBase
from enzc.ir.libc import declare
from enzc.ir.module import Module
from enzc.ir.types import I1, I8, I32, I64, PTR, FunctionType
from enzc.ir.values import ConstantExpr, ConstantInt, ConstantSimple, Value

from enzc.ad.analysis.mpi import ANY_SOURCE, FLOAT_DATATYPES, INACTIVE_CALLS, SUM, float_transfer, handle_name
from enzc.ad.analysis.mpi import mpi_callee, transfer_of
from enzc.ad.rules.library_hints import library_hint
from enzc.ad.synth.gradient_utils import GradientUtils
from enzc.ad.synth.mpi_buffers import adder, elem_bytes, mpi_handle
from enzc.ad.synth.mpi_extrema import forward_extremum, is_extremum, reverse_extremum, winners
from enzc.ad.synth.mpi_requests import forward_request, is_nonblocking, is_wait, record_request, reverse_request

HINT = library_hint("MPI_") or ""
"""What differentiated MPI code may use (`rules.library_hints`)."""

_SIGNATURES = {
    "MPI_Send": (PTR, I32, PTR, I32, I32, PTR),
    "MPI_Recv": (PTR, I32, PTR, I32, I32, PTR, PTR),
    "MPI_Bcast": (PTR, I32, PTR, I32, PTR),
    "MPI_Reduce": (PTR, PTR, I32, PTR, PTR, I32, PTR),
    "MPI_Allreduce": (PTR, PTR, I32, PTR, PTR, PTR),
    "MPI_Comm_rank": (PTR, PTR),
}


def _mpi(module: Module, name: str) -> Value:
    return get_or_insert_function(module, name, FunctionType(I32, _SIGNATURES[name]))


def is_mpi(call: CallBase) -> bool:
    return mpi_callee(call) is not None


def check_mpi(gu: GradientUtils, call: CallBase) -> None:
    """An MPI call that moves floats must be one this module differentiates."""
    name = mpi_callee(call)
    if name is None or name in INACTIVE_CALLS or is_wait(call):
        return  # a wait's derivative is its transfers' (`mpi_requests`)
    act = gu.activity
    t = transfer_of(call)
    touches = any(act.has_shadow(a) or a in act.varied for a in call.args)
    if touches and gu.runtime_activity:
        raise gu.error(call, f"cannot differentiate '{name}' with runtime activity (enzyme_runtime_activity): "
                             "its buffers' shadows are not checked at run time",
                       "differentiate MPI code without runtime activity, passing real shadow buffers")
    if t is None:
        floats = any(handle_name(a) in FLOAT_DATATYPES for a in call.args)  # e.g. an MPI_Irecv of doubles
        if touches or floats:
            raise gu.error(call, f"cannot differentiate '{name}' on differentiable data", HINT)
        return
    if not (handle_name(call.args[t.datatype]) or "").startswith("ompi_mpi_"):
        raise gu.error(call, f"cannot tell which datatype '{name}' transfers (enzc reads Open MPI's predefined "
                             "handles; derived datatypes and other MPI implementations are not supported)", HINT)
    elem = float_transfer(call)
    if elem is None:
        if touches:
            raise gu.error(call, f"cannot differentiate '{name}' of a datatype other than MPI_DOUBLE or "
                                 "MPI_FLOAT on differentiable data", HINT)
        return
    if t.op is not None and handle_name(call.args[t.op]) != SUM and not is_extremum(call):
        raise gu.error(call, f"cannot differentiate '{name}' with an operation other than MPI_SUM "
                             f"('{handle_name(call.args[t.op]) or '?'}')", HINT)
    for k in (t.send, t.recv):
        if k is None:
            continue
        buf = call.args[k]
        if _in_place(buf):
            raise gu.error(call, f"cannot differentiate '{name}' with MPI_IN_PLACE", "pass separate buffers")
        if not act.has_shadow(buf) and not (k == t.recv and name == "MPI_Reduce" and _is_null(buf)):
            raise gu.error(call, f"the buffer of '{name}' holds floats the AD cannot shadow (an enzyme_const "
                                 "argument?): its messages' derivatives would have nowhere to go",
                           "pass the buffer with enzyme_dup, or copy it into a local array first")
    if t.request is not None and not act.has_shadow(call.args[t.request]):
        raise gu.error(call, f"the request of '{name}' is memory the AD cannot shadow (an enzyme_const argument?): "
                             "the transfer's reverse would have nowhere to keep its record",
                       "keep the MPI_Request in a local variable of the differentiated code")
    if name in ("MPI_Recv", "MPI_Irecv"):
        for k, what in ((t.peer, "MPI_ANY_SOURCE"), (t.tag, "MPI_ANY_TAG")):
            v = call.args[k]  # type: ignore[index]
            if isinstance(v, ConstantInt) and v.value == ANY_SOURCE:
                raise gu.error(call, f"cannot differentiate a receive from {what}",
                               "receive from a known rank with a known tag")


def prepare_mpi(gu: GradientUtils, call: CallBase) -> None:
    """Reverse mode, forward pass at MPI call `call` (original): check it, and
    record what its reverse needs (requests' records, MAX/MIN winners)."""
    check_mpi(gu, call)
    record_request(gu, call)
    if is_extremum(call) and gu.activity.is_active_instruction(call):
        b = IRBuilder()
        b.position_after(gu.new_value(call))  # type: ignore[arg-type]
        gu.mpi_records[call] = winners(gu, call, b)


def _in_place(v: Value) -> bool:
    """`MPI_IN_PLACE`, `(void *)1` in Open MPI."""
    return isinstance(v, ConstantExpr) and v.opcode == "inttoptr"


def _is_null(v: Value) -> bool:
    return isinstance(v, ConstantSimple) and v.keyword == "null"


# -- reverse mode ---------------------------------------------------------------------------


def reverse_mpi(gu: GradientUtils, call: CallBase) -> bool:
    """Emit the reverse of transfer `call` at the builder; False if not one."""
    if is_nonblocking(call) or is_wait(call):
        return reverse_request(gu, call)
    if is_extremum(call) and call in gu.mpi_records:
        check_mpi(gu, call)
        reverse_extremum(gu, call, gu.mpi_records[call])
        return True
    t = transfer_of(call)
    elem = float_transfer(call)
    if t is None or elem is None:
        return False
    check_mpi(gu, call)
    name = mpi_callee(call)
    b = gu.b
    m = gu.module

    def arg(k: int | None) -> Value:
        assert k is not None
        return gu.lookup(gu.new_value(call.args[k]))

    def shadow(k: int | None) -> Value:
        assert k is not None
        v = call.args[k]
        return v if _is_null(v) else gu.lookup(gu.shadow(v))

    count, dtype = arg(t.count), arg(t.datatype)
    size = b.mul(b.sext(count, I64, "mpi.n"), ConstantInt(I64, elem_bytes(elem)), "mpi.bytes")
    tmp = b.call(declare(m, "malloc"), [size], "mpi.tmp")
    if name == "MPI_Send":
        b.call(_mpi(m, "MPI_Recv"), [tmp, count, dtype, arg(t.peer), arg(t.tag), arg(t.comm), b.const_null(PTR)])
        b.call(adder(m, elem), [shadow(t.send), tmp, count])
    elif name == "MPI_Recv":
        b.call(_mpi(m, "MPI_Send"), [shadow(t.recv), count, dtype, arg(t.peer), arg(t.tag), arg(t.comm)])
        _memset(b, m, shadow(t.recv), size)
    elif name == "MPI_Bcast":
        root = _is_root(gu, b, arg(t.peer), arg(t.comm))
        b.call(_mpi(m, "MPI_Reduce"), [shadow(t.send), tmp, count, dtype, mpi_handle(m, SUM), arg(t.peer), arg(t.comm)])
        _memset(b, m, shadow(t.send), size)
        _memcpy(b, m, shadow(t.send), tmp, b.select(root, size, ConstantInt(I64, 0), "mpi.size"))
    elif name == "MPI_Reduce":
        root = _is_root(gu, b, arg(t.peer), arg(t.comm))
        on_root = b.select(root, size, ConstantInt(I64, 0), "mpi.size")
        _memset(b, m, tmp, size)
        _memcpy(b, m, tmp, shadow(t.recv), on_root)
        _memset(b, m, shadow(t.recv), on_root)
        b.call(_mpi(m, "MPI_Bcast"), [tmp, count, dtype, arg(t.peer), arg(t.comm)])
        b.call(adder(m, elem), [shadow(t.send), tmp, count])
    else:  # MPI_Allreduce
        b.call(_mpi(m, "MPI_Allreduce"), [shadow(t.recv), tmp, count, dtype, mpi_handle(m, SUM), arg(t.comm)])
        _memset(b, m, shadow(t.recv), size)
        b.call(adder(m, elem), [shadow(t.send), tmp, count])
    b.call(declare(m, "free"), [tmp])
    return True


def _is_root(gu: GradientUtils, b: IRBuilder, root: Value, comm: Value) -> Value:
    with b.goto_entry_allocas():
        slot = b.alloca(I32, name="mpi.rank")
    b.call(_mpi(gu.module, "MPI_Comm_rank"), [comm, slot])
    return b.icmp("eq", b.load(I32, slot, "mpi.rank"), root, "mpi.is.root")


def _memset(b: IRBuilder, m: Module, dst: Value, size: Value) -> None:
    b.call(declare(m, "llvm.memset.p0.i64"), [dst, ConstantInt(I8, 0), size, ConstantInt(I1, 0)])


def _memcpy(b: IRBuilder, m: Module, dst: Value, src: Value, size: Value) -> None:
    b.call(declare(m, "llvm.memcpy.p0.p0.i64"), [dst, src, size, ConstantInt(I1, 0)])


# -- forward mode ---------------------------------------------------------------------------


def forward_mpi(gu: GradientUtils, call: CallBase, after: IRBuilder) -> bool:
    """Forward mode: the transfer again on the shadows, at `after` (right after the
    original). False if `call` is not a transfer of floats."""
    if is_nonblocking(call) or is_wait(call):
        return forward_request(gu, call, after)
    if is_extremum(call):
        check_mpi(gu, call)
        forward_extremum(gu, call, after)
        return True
    t = transfer_of(call)
    if t is None or float_transfer(call) is None:
        return False
    check_mpi(gu, call)
    args: list[Value] = []
    for k, a in enumerate(call.args):
        if k in (t.send, t.recv):
            args.append(a if _is_null(a) else gu.shadow(a))
        else:
            args.append(gu.new_value(a))
    nc = gu.new_value(call)
    assert isinstance(nc, CallBase)
    after.call(nc.callee, args, fn_type=nc.function_type)
    return True
