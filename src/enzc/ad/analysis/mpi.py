"""What the engine knows about MPI calls, in Open MPI's ABI.

Open MPI's handles are addresses of its globals: `MPI_DOUBLE` is `@ompi_mpi_double`,
`MPI_SUM` is `@ompi_mpi_op_sum`, `MPI_COMM_WORLD` is `@ompi_mpi_comm_world`. A
transfer (`TRANSFERS`) moves the floats of its buffers between ranks, so its
derivative moves their adjoints the other way (`synth.mpi_calls`).

Every rank runs the same derivative, and a message's reverse is a message the
other way: a send whose derivative receives must meet a receive whose derivative
sends. So whether a transfer takes part in the derivative must not depend on what
one rank knows. A transfer of `MPI_DOUBLE` or `MPI_FLOAT` data therefore always
does: activity analysis gives its buffers shadows (`float_transfer`), and a
buffer that cannot have one (an `enzyme_const` argument) is a compile-time error.

`INACTIVE_CALLS` are the calls that carry no derivative, with the pointer
arguments they write (ranks, sizes, flags).
"""

from __future__ import annotations

from dataclasses import dataclass

from enzc.ir.instructions import CallBase
from enzc.ir.module import GlobalVariable
from enzc.ir.types import DOUBLE, FLOAT, FloatType
from enzc.ir.values import ConstantExpr, Value


@dataclass(frozen=True)
class Transfer:
    """Where a transfer's arguments are."""

    send: int | None
    """The buffer it reads (None: it reads none)."""
    recv: int | None
    """The buffer it writes (the same as `send` for `MPI_Bcast`)."""
    count: int
    datatype: int
    peer: int | None = None
    """The destination, source or root rank."""
    tag: int | None = None
    comm: int | None = None
    op: int | None = None
    request: int | None = None
    """A non-blocking transfer's `MPI_Request *` (`synth.mpi_requests`)."""


TRANSFERS: dict[str, Transfer] = {
    "MPI_Send": Transfer(send=0, recv=None, count=1, datatype=2, peer=3, tag=4, comm=5),
    "MPI_Recv": Transfer(send=None, recv=0, count=1, datatype=2, peer=3, tag=4, comm=5),
    "MPI_Bcast": Transfer(send=0, recv=0, count=1, datatype=2, peer=3, comm=4),
    "MPI_Reduce": Transfer(send=0, recv=1, count=2, datatype=3, op=4, peer=5, comm=6),
    "MPI_Allreduce": Transfer(send=0, recv=1, count=2, datatype=3, op=4, comm=5),
    "MPI_Isend": Transfer(send=0, recv=None, count=1, datatype=2, peer=3, tag=4, comm=5, request=6),
    "MPI_Irecv": Transfer(send=None, recv=0, count=1, datatype=2, peer=3, tag=4, comm=5, request=6),
}
"""The transfers whose derivatives `synth.mpi_calls` emits."""

INACTIVE_CALLS: dict[str, tuple[int, ...]] = {
    "MPI_Comm_rank": (1,),
    "MPI_Comm_size": (1,),
    "MPI_Barrier": (),
    "MPI_Wtime": (),
    "MPI_Initialized": (0,),
    "MPI_Abort": (),
}
"""MPI calls without a derivative, and the pointer arguments they write."""

WAITS: dict[str, tuple[int | None, int]] = {"MPI_Wait": (None, 0), "MPI_Waitall": (0, 1)}
"""Completions of non-blocking transfers: the index of their request count (None:
one request) and of their `MPI_Request *`."""

FLOAT_DATATYPES: dict[str, FloatType] = {"ompi_mpi_double": DOUBLE, "ompi_mpi_float": FLOAT}
SUM = "ompi_mpi_op_sum"
ANY_SOURCE = -1
"""`MPI_ANY_SOURCE` and `MPI_ANY_TAG` in Open MPI."""


def mpi_callee(call: CallBase) -> str | None:
    """The MPI function `call` calls (`PMPI_x` read as `MPI_x`), or None."""
    fn = call.called_function
    name = (fn.name or "") if fn is not None else ""
    if name.startswith("PMPI_"):
        name = name[1:]
    return name if name.startswith("MPI_") else None


def transfer_of(call: CallBase) -> Transfer | None:
    name = mpi_callee(call)
    return TRANSFERS.get(name) if name is not None else None


def handle_name(v: Value) -> str | None:
    """The Open MPI global a handle argument names (`@ompi_mpi_double`), or None."""
    if isinstance(v, ConstantExpr) and v.operands:
        v = v.operands[0]
    return v.name if isinstance(v, GlobalVariable) else None


def float_transfer(call: CallBase) -> FloatType | None:
    """The element type of a transfer of `MPI_DOUBLE`/`MPI_FLOAT` data, else None."""
    t = transfer_of(call)
    if t is None or len(call.args) <= t.datatype:
        return None
    return FLOAT_DATATYPES.get(handle_name(call.args[t.datatype]) or "")


def buffers(call: CallBase) -> list[Value]:
    """The buffers a transfer reads or writes."""
    t = transfer_of(call)
    if t is None:
        return []
    return [call.args[i] for i in dict.fromkeys(x for x in (t.send, t.recv) if x is not None)]
