"""What the engine knows about LLVM's OpenMP runtime (libomp) calls in clang's output.

Clang compiles `#pragma omp parallel` into `__kmpc_fork_call(loc, n, outlined,
captures...)`: the runtime starts a team and every thread calls
`outlined(&gtid, &btid, captures...)`. Inside, a work-sharing loop asks
`__kmpc_for_static_init_*` (or `__kmpc_dispatch_next_*`) for the iterations of its
thread, critical sections and reductions take runtime locks, barriers wait for the
team. This module is the table of those calls:

- `RUNTIME_WRITES`: runtime calls that write no program memory but the integer
  slots they are given (loop bounds, flags). Synchronisation (barriers, locks)
  writes nothing the derivative could see change: what other threads write in the
  meantime, they write with the same instructions of the same function.
- `REVERSE_SYNC`: synchronisation and its counterpart in the reverse pass (a
  barrier stays a barrier; entering a critical section becomes leaving it).
- `UNSUPPORTED`: constructs whose reverse is not defined here (tasks, `ordered`,
  `copyprivate`, teams, GNU libgomp): a located error wherever they appear in a
  function being differentiated (`synth.derived`).
"""

from __future__ import annotations

from enzc.ir.instructions import CallBase
from enzc.ir.module import Function
from enzc.ir.values import ConstantExpr, Value

FORK = "__kmpc_fork_call"
"""`void (ptr loc, i32 n, ptr outlined, ...)`: runs `outlined` on a new team."""

CAPTURES_START = 3
"""Index of the fork call's first capture (after loc, n, outlined)."""

OUTLINED_CAPTURES_START = 2
"""Index of the outlined function's first capture (after the two thread-id pointers)."""

_STATIC_INIT = ("__kmpc_for_static_init_4", "__kmpc_for_static_init_4u",
                "__kmpc_for_static_init_8", "__kmpc_for_static_init_8u")
_DISPATCH_NEXT = ("__kmpc_dispatch_next_4", "__kmpc_dispatch_next_4u",
                  "__kmpc_dispatch_next_8", "__kmpc_dispatch_next_8u")

RUNTIME_WRITES: dict[str, tuple[int, ...]] = {
    **{n: (3, 4, 5, 6) for n in _STATIC_INIT},
    **{n: (2, 3, 4, 5) for n in _DISPATCH_NEXT},
    **{f"__kmpc_dispatch_init_{s}": () for s in ("4", "4u", "8", "8u")},
    **{f"__kmpc_dispatch_fini_{s}": () for s in ("4", "4u", "8", "8u")},
    "__kmpc_dispatch_deinit": (),
    "__kmpc_for_static_fini": (),
    "__kmpc_global_thread_num": (),
    "__kmpc_push_num_threads": (),
    "__kmpc_push_proc_bind": (),
    "__kmpc_barrier": (),
    "__kmpc_flush": (),
    "__kmpc_critical": (),
    "__kmpc_critical_with_hint": (),
    "__kmpc_end_critical": (),
    "__kmpc_single": (),
    "__kmpc_end_single": (),
    "__kmpc_master": (),
    "__kmpc_end_master": (),
    "__kmpc_masked": (),
    "__kmpc_end_masked": (),
    "__kmpc_serialized_parallel": (),
    "__kmpc_end_serialized_parallel": (),
    "omp_get_thread_num": (),
    "omp_get_num_threads": (),
    "omp_get_max_threads": (),
    "omp_get_num_procs": (),
    "omp_in_parallel": (),
    "omp_get_level": (),
    "omp_get_wtime": (),
    "omp_set_lock": (),
    "omp_unset_lock": (),
    "omp_set_nest_lock": (),
    "omp_unset_nest_lock": (),
}
"""Runtime calls that carry no derivative, with the pointer arguments they write."""

REVERSE_SYNC: dict[str, str] = {
    "__kmpc_barrier": "__kmpc_barrier",
    "__kmpc_flush": "__kmpc_flush",
    "__kmpc_critical": "__kmpc_end_critical",
    "__kmpc_critical_with_hint": "__kmpc_end_critical",
    "__kmpc_end_critical": "__kmpc_critical",
    "omp_set_lock": "omp_unset_lock",
    "omp_unset_lock": "omp_set_lock",
    "omp_set_nest_lock": "omp_unset_nest_lock",
    "omp_unset_nest_lock": "omp_set_nest_lock",
}
"""Synchronisation and what the reverse pass does at its place: the adjoints of a
critical section are accumulated under the same lock, in reverse order."""

UNSUPPORTED = ("__kmpc_omp_task", "__kmpc_omp_taskwait", "__kmpc_omp_taskyield", "__kmpc_taskgroup",
               "__kmpc_end_taskgroup", "__kmpc_taskloop", "__kmpc_ordered", "__kmpc_end_ordered",
               "__kmpc_copyprivate", "__kmpc_fork_teams", "__kmpc_push_num_teams", "__kmpc_doacross",
               "__kmpc_reduce", "__kmpc_end_reduce", "GOMP_")
"""Prefixes of runtime entry points the engine does not differentiate (reductions
are rewritten before, `parallel_prepare`; any left is an unknown pattern)."""


def callee(call: CallBase) -> str:
    fn = call.called_function
    return (fn.name or "") if fn is not None else ""


def is_fork(call: CallBase) -> bool:
    """A `__kmpc_fork_call` whose outlined function the program defines."""
    return callee(call) == FORK and outlined_function(call) is not None


def outlined_function(call: CallBase) -> Function | None:
    """The function a fork call runs on every thread, if known and defined."""
    if len(call.args) < CAPTURES_START:
        return None
    fn: Value = call.args[2]
    if isinstance(fn, ConstantExpr) and fn.operands:
        fn = fn.operands[0]
    if isinstance(fn, Function) and not fn.is_declaration:
        return fn
    return None


def is_sync(call: CallBase) -> bool:
    """Synchronisation whose reverse the reverse pass must emit (`REVERSE_SYNC`)."""
    return callee(call) in REVERSE_SYNC


def is_unsupported(name: str) -> bool:
    return name.startswith(UNSUPPORTED)
