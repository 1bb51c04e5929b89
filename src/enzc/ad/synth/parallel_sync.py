"""The reverse of OpenMP synchronisation: barriers stay barriers, locks swap; and
what a locked section may contain for its reverse to be right (`check_locked_sections`).

The reverse pass runs a team's work backwards, so what ordered the forward pass
must order it too: a barrier's reverse is a barrier (adjoints another thread
accumulates before it in the reverse pass were read after it in the forward
pass), and the reverse of a critical section runs under the same lock, taken at
the reverse of `__kmpc_end_critical` and released at the reverse of
`__kmpc_critical` (a reduction's `shared += private` reads and clears the shared
adjoint and adds it back: two threads doing that at once would lose one's share).
User locks (`omp_set_lock`/`omp_unset_lock`) swap the same way.

The thread id the runtime calls take is asked again (`__kmpc_global_thread_num`)
rather than read from the forward pass: the reverse runs on another team.
"""

from __future__ import annotations

from enzc.ir.builder import get_or_insert_function
from enzc.ir.instructions import BinaryOp, CallBase, Cast, Instruction, Load, Store
from enzc.ir.types import I32, PTR, VOID, FunctionType

from enzc.ad.analysis.activity import carries_float
from enzc.ad.analysis.openmp import REVERSE_SYNC, callee
from enzc.ad.synth.gradient_utils import GradientUtils
from enzc.ad.synth.parallel_adjoints import thread_private
from enzc.ad.synth.parallel_wrappers import runtime

_KMPC_ARGS = {"__kmpc_barrier": 2, "__kmpc_flush": 1, "__kmpc_critical": 3, "__kmpc_end_critical": 3}
"""Arguments of the runtime calls the reverse pass emits: (loc[, gtid[, lock]])."""


def reverse_sync(gu: GradientUtils, call: CallBase) -> None:
    """Emit the reverse of synchronisation `call` at the builder's position."""
    name = REVERSE_SYNC[callee(call)]
    b = gu.b
    first = gu.lookup(gu.new_value(call.args[0]))
    if name.startswith("omp_"):
        b.call(get_or_insert_function(gu.module, name, FunctionType(VOID, (PTR,))), [first])
        return
    count = _KMPC_ARGS[name]
    args = [first]
    if count >= 2:
        args.append(b.call(runtime(gu.module, "__kmpc_global_thread_num"), [first], "omp.gtid"))
    if count >= 3:
        args.append(gu.lookup(gu.new_value(call.args[2])))
    b.call(get_or_insert_function(gu.module, name, FunctionType(VOID, (PTR, I32, PTR)[:count])), args)


# -- what a locked section may do ------------------------------------------------------------

LOCK_PAIRS = {"__kmpc_critical": "__kmpc_end_critical", "__kmpc_critical_with_hint": "__kmpc_end_critical",
              "omp_set_lock": "omp_unset_lock", "omp_set_nest_lock": "omp_unset_nest_lock"}
"""Calls opening a locked section, and the call that closes it."""

SECTION_LIMIT = 10_000
"""Instructions searched for the end of a locked section."""


def check_locked_sections(gu: GradientUtils) -> None:
    """The reverse of a locked section runs in whatever order the threads take the
    lock, not in the reverse of the forward order. That is right only when the
    section adds to shared floats (`s = s + e`, `s = s - e`, `s = s + e1 - e2`): the
    shared adjoint then passes through unchanged and each thread's share does not
    depend on the others'. Any other use of a shared float under the lock (a
    `max` or `*` reduction, `s = s * x`, reading `s` for something else) is a
    located error instead of a gradient that depends on thread timing."""
    for inst in gu.original.instructions():
        if isinstance(inst, CallBase) and callee(inst) in LOCK_PAIRS:
            for member in _section(inst, LOCK_PAIRS[callee(inst)]):
                _check_member(gu, member)


def _section(start: CallBase, end_name: str) -> list[Instruction]:
    """The instructions after `start` up to the closing call on every path."""
    found: list[Instruction] = []
    block = start.parent
    assert block is not None
    work = [(block, block.instructions.index(start) + 1)]
    seen: set[int] = set()
    while work and len(found) < SECTION_LIMIT:
        block, at = work.pop()
        closed = False
        for inst in block.instructions[at:]:
            if isinstance(inst, CallBase) and callee(inst) == end_name:
                closed = True
                break
            found.append(inst)
        if not closed:
            for succ in block.successors:
                if id(succ) not in seen:
                    seen.add(id(succ))
                    work.append((succ, 0))
    return found


def _check_member(gu: GradientUtils, inst: Instruction) -> None:
    if not isinstance(inst, Load) or not carries_float(inst.type) or thread_private(inst.ptr):
        return
    if not gu.activity.has_shadow(inst.ptr) and inst not in gu.activity.varied:
        return
    store = _sum_into(inst)
    if store is None or store.ptr is not inst.ptr:
        raise gu.error(inst, "the reverse of this critical section or reduction would depend on the order the "
                             "threads took its lock: a shared floating-point value is used under the lock for "
                             "something else than adding to it",
                       "only `shared += expr` and `shared -= expr` (reduction(+), or critical sections adding "
                       "into shared data) are differentiated; compute max/min/products per thread and combine "
                       "them after the parallel region")


def _sum_into(load: Load) -> Store | None:
    """The store of `load + e` (or `load - e`, `fma(a, b, load)`, chains of them,
    with precision conversions) back to memory, if that is the only use of the
    loaded value."""
    value: Instruction = load
    while True:
        users = value.users
        if len(users) != 1:
            return None
        user = users[0]
        if isinstance(user, Store):
            return user if user.value is value else None
        converts = isinstance(user, Cast) and user.opcode in ("fpext", "fptrunc")  # `float += double`
        adds = isinstance(user, BinaryOp) and (user.opcode == "fadd" or
                                               (user.opcode == "fsub" and user.operand(0) is value))
        fused = isinstance(user, CallBase) and callee(user).startswith(("llvm.fmuladd.", "llvm.fma.")) \
            and user.args[2] is value and value not in user.args[:2]  # `a * b + shared`
        if not (converts or adds or fused):
            return None
        value = user
