"""OpenMP parallel regions in derivatives: the outlined function is differentiated
like any other function, and a team runs its derivative in both passes.

Reverse mode, at `__kmpc_fork_call(loc, n, outlined, c...)` (the captures `c`):

    forward   tapes = __enzc_omp_tapes_new(capacity)
              __kmpc_fork_call(loc, m, omp_aug.<f>, c, c'..., tapes)
                  thread t: tapes[t] = augmented_<f>(gtid, btid, c, c'...)
    reverse   __kmpc_push_num_threads(loc, gtid, tapes.threads)
              __kmpc_fork_call(loc, m, omp_rev.<f>, c, c'..., tapes, acc)
                  thread t: d = reverse_<f>(gtid, btid, c, c'..., tapes[t]); acc += d (atomic)
              free(tapes); adjoints of the float captures += acc

`c'` are the shadows of captures that have one. The derivative of `f` is a split
pair made with `Signature.parallel` (`parallel_adjoints`: adjoints of shared
memory accumulate atomically, except where iterations provably touch disjoint
memory), with the calls `f` makes derived the same way. The reverse team has the
forward team's size and thread t replays thread t's tape: the iterations a static
or dynamic schedule gave it, in reverse, with the barriers at the same places and
the critical sections under the same locks (`parallel_sync`). A reverse team of
another size (OMP_DYNAMIC, thread limits) stops the program with a message.

Forward mode: `__kmpc_fork_call(loc, m, omp_words.<f>, c, dc...)`, each thread
running `fwddiffe_<f>`. Float captures travel as words (`parallel_wrappers`); a
fork whose region is inactive runs the original outlined function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import CallBase, Instruction
from enzc.ir.libc import declare
from enzc.ir.module import Function
from enzc.ir.types import DOUBLE, FLOAT, I32, PTR, StructType, Type
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.activity import ArgActivity
from enzc.ad.analysis.openmp import CAPTURES_START, OUTLINED_CAPTURES_START, outlined_function
from enzc.ad.synth.call_derivatives import stable_args
from enzc.ad.synth.gradient_utils import GradientUtils
from enzc.ad.synth.parallel_wrappers import augmented_wrapper, reverse_wrapper, runtime, words_wrapper
from enzc.ad.synth.parallel_wrappers import tape_table_threads, tapes_new, to_word
from enzc.ad.synth.signature import Signature

CAPACITY_SCAN = 4
"""Instructions before a fork searched for the `num_threads` clause's push."""


@dataclass
class ForkRecord:
    """What the reverse pass needs of one active fork call."""

    signature: Signature
    """The outlined function's (thread ids constant, captures as the caller sees them)."""
    reverse: Function
    """`reverse_<outlined>` of the split pair."""
    tapes: Value
    """Forward value: the table of the team's tapes."""


def outlined_signature(gu: GradientUtils, call: CallBase) -> Signature:
    """Thread-id pointers constant; a capture with a shadow `dup`, a float capture
    with an adjoint `out`; stable and distinct captures as for a call (`stable_args`,
    `distinct_pairs`), so the region reloads what the serial code would reload
    instead of caching it per iteration."""
    classes = [ArgActivity.CONST, ArgActivity.CONST]
    for a in _captures(call):
        if gu.activity.has_shadow(a):
            classes.append(ArgActivity.DUP)
        elif gu.has_adjoint(a):
            classes.append(ArgActivity.OUT)
        else:
            classes.append(ArgActivity.CONST)
    shift = OUTLINED_CAPTURES_START - CAPTURES_START
    stable = frozenset(i + shift for i in stable_args(gu, call) if i >= CAPTURES_START)
    distinct = frozenset((i + shift, j + shift) for i, j in gu.memory.distinct_pairs(list(call.args))
                         if i >= CAPTURES_START and j >= CAPTURES_START)
    return Signature(tuple(classes), False, stable, distinct=distinct, parallel=True,
                     runtime_activity=gu.runtime_activity)


def _captures(call: CallBase) -> tuple[Value, ...]:
    return call.args[CAPTURES_START:]


def _derived_words(gu: GradientUtils, b: IRBuilder, call: CallBase, sig: Signature,
                   value: Callable[[Value], Value], shadow: Callable[[Value], Value]) -> list[Value]:
    """Each capture (as a word), followed by its shadow or tangent when it has one."""
    words: list[Value] = []
    for a, cls in zip(_captures(call), sig.args[OUTLINED_CAPTURES_START:]):
        words.append(to_word(b, value(a)))
        if cls.has_shadow:
            words.append(to_word(b, shadow(a)))
    return words


def _fork(b: IRBuilder, gu: GradientUtils, loc: Value, wrapper: Function, words: list[Value]) -> Instruction:
    fork = runtime(gu.module, "__kmpc_fork_call")
    return b.call(fork, [loc, ConstantInt(I32, len(words)), wrapper, *words])


# -- reverse mode ---------------------------------------------------------------------------


def lower_fork(gu: GradientUtils, call: CallBase) -> None:
    """The forward pass of fork `call`: the augmented team, or the original region."""
    nc = gu.new_value(call)
    assert isinstance(nc, CallBase)
    if not gu.activity.is_active_instruction(call) or gu.derivatives is None:
        primal_fork(gu, nc)
        return
    outlined = outlined_function(call)
    assert outlined is not None
    sig = outlined_signature(gu, call)
    split = gu.derivatives.split(outlined, sig)
    b = IRBuilder()
    b.position_before(nc)
    tapes = b.call(tapes_new(gu.module), [_capacity(gu, b, call)], "omp.tapes")
    words = _derived_words(gu, b, call, sig, gu.new_value, gu.shadow)
    forked = _fork(b, gu, gu.new_value(call.args[0]), augmented_wrapper(gu.module, split.augmented), [*words, tapes])
    gu.value_map[call] = forked
    gu.original_of[forked] = call
    nc.erase()
    gu.fork_records[call] = ForkRecord(sig, split.reverse, tapes)


def _capacity(gu: GradientUtils, b: IRBuilder, call: CallBase) -> Value:
    """How many threads the team may have: omp_get_max_threads(), or the
    `num_threads` clause's request when it asks for more."""
    most = b.call(runtime(gu.module, "omp_get_max_threads"), [], "omp.max")
    block = call.parent
    assert block is not None
    at = block.instructions.index(call)
    for inst in reversed(block.instructions[max(0, at - CAPACITY_SCAN):at]):
        if isinstance(inst, CallBase) and inst.called_function is not None \
                and inst.called_function.name == "__kmpc_push_num_threads":
            asked = gu.new_value(inst.args[2])
            return b.select(b.icmp("sgt", asked, most, "omp.more"), asked, most, "omp.capacity")
    return most


def reverse_fork(gu: GradientUtils, call: CallBase) -> bool:
    """Emit the reverse team of fork `call` at the builder; False if not a fork."""
    rec = gu.fork_records.get(call)
    if not isinstance(rec, ForkRecord):
        return False
    b = gu.b
    loc = gu.lookup(gu.new_value(call.args[0]))
    words = _derived_words(gu, b, call, rec.signature, lambda a: gu.lookup(gu.new_value(a)),
                           lambda a: gu.lookup(gu.shadow(a)))
    tapes = gu.lookup(rec.tapes)
    outs = [a for a, cls in zip(_captures(call), rec.signature.args[OUTLINED_CAPTURES_START:])
            if cls is ArgActivity.OUT]
    out_types: list[Type] = [a.type for a in outs]
    acc: Value = b.const_null(PTR)
    if outs:
        with b.goto_entry_allocas():
            acc = b.alloca(StructType(tuple(out_types)), name="omp.acc")
        b.store(b.const_zero(StructType(tuple(out_types))), acc)
    gtid = b.call(runtime(gu.module, "__kmpc_global_thread_num"), [loc], "omp.gtid")
    b.call(runtime(gu.module, "__kmpc_push_num_threads"), [loc, gtid, tape_table_threads(b, tapes)])
    _fork(b, gu, loc, reverse_wrapper(gu.module, rec.reverse, out_types), [*words, tapes, acc])
    b.call(declare(gu.module, "free"), [tapes])
    for k, a in enumerate(outs):
        part = b.load(a.type, b.gep(StructType(tuple(out_types)), acc, [0, k], "omp.acc.addr"), "omp.d")
        gu.add_adjoint(a, part)
    return True


# -- forward mode and inactive regions ------------------------------------------------------


def forward_mode_fork(gu: GradientUtils, call: CallBase, tangent: Callable[[Value], Value | None]) -> None:
    """Forward mode at fork `call`: each thread runs `fwddiffe_<outlined>`; a float
    capture's tangent is `tangent(capture)` (None: it has none), a pointer's its shadow."""
    nc = gu.new_value(call)
    assert isinstance(nc, CallBase)
    outlined = outlined_function(call)
    assert outlined is not None
    classes = [ArgActivity.CONST, ArgActivity.CONST]
    for a in _captures(call):
        has = gu.activity.has_shadow(a) if a.type == PTR else tangent(a) is not None
        classes.append(ArgActivity.DUP if has else ArgActivity.CONST)
    if ArgActivity.DUP not in classes or gu.derivatives is None:
        primal_fork(gu, nc)
        return
    sig = Signature(tuple(classes), False, parallel=True, runtime_activity=gu.runtime_activity)
    fd = gu.derivatives.forward(outlined, sig)
    b = IRBuilder()
    b.position_before(nc)
    words = _derived_words(gu, b, call, sig, gu.new_value,
                           lambda a: gu.shadow(a) if a.type == PTR else tangent(a))  # type: ignore[arg-type,return-value]
    forked = _fork(b, gu, gu.new_value(call.args[0]), words_wrapper(gu.module, fd.function), words)
    gu.value_map[call] = forked
    gu.original_of[forked] = call
    nc.erase()


def primal_fork(gu: GradientUtils, nc: CallBase) -> None:
    """A fork of an inactive region in a derivative: the outlined function, through
    a wrapper taking floats as words when `parallel_prepare` passed some by value."""
    fn = nc.args[2]
    if not isinstance(fn, Function) or not any(t in (DOUBLE, FLOAT) for t in fn.function_type.params):
        return
    b = IRBuilder()
    b.position_before(nc)
    nc.set_operand(2, words_wrapper(gu.module, fn))
    for k in range(CAPTURES_START, len(nc.args)):
        nc.set_operand(k, to_word(b, nc.args[k]))
