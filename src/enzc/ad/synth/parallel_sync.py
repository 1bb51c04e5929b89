"""The reverse of OpenMP synchronisation: barriers stay barriers, locks swap.

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
from enzc.ir.instructions import CallBase
from enzc.ir.types import I32, PTR, VOID, FunctionType

from enzc.ad.analysis.openmp import REVERSE_SYNC, callee
from enzc.ad.synth.gradient_utils import GradientUtils
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
