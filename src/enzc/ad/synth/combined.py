"""Create the combined forward+reverse function `diffe_<f>` for one activity signature.

Layout of the new function:

    forward blocks   clone of the (prepared) original: same values, plus induction
                     variables, shadows of active pointers and cache stores; each
                     `ret` becomes: seed the return adjoint with 1.0, `br rev.<block>`
    reverse blocks   `rev.B` for every original block B that can reach a return:
                     B's active instructions backwards, then a branch to the reverse
                     of the predecessor the forward pass came from (through an edge
                     block that moves phi adjoints to the incoming values and keeps
                     the loops' reverse counters)
    rev.exit         returns the adjoints of the `out` arguments

The predecessor is known without storing anything when the loop counter or a
branch condition tells it (`rev.i == 0` at a header; the condition of an if/else
diamond); otherwise a small integer phi in B records it in the forward pass and
is looked up like any other forward value (cached per iteration inside loops).

Derived functions are memoized per (function, signature) by `derivatives.DerivativeCache`;
part 2 adds augmented-forward/reverse pairs for calls with the same visitor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from enzc.ir.builder import new_block
from enzc.ir.datalayout import DataLayout
from enzc.ir.instructions import AtomicRMW, Br, CallBase, Phi, Ret, Store, Switch, Unreachable
from enzc.ir.module import BasicBlock, Function, Module
from enzc.ir.types import VOID, FloatType, Type
from enzc.ir.values import ConstantInt, Value, const_fp

from enzc.ad.analysis.activity import Activity, ArgActivity, carries_pointer
from enzc.ad.analysis.openmp import is_fork, is_sync
from enzc.ad.memory.mirrored_calls import mirror_call
from enzc.ad.memory.pointer_copies import copy_pointer_shadows
from enzc.ad.rules.blas_reverse import forward_blas_calls
from enzc.ad.rules.custom import forward_custom_calls
from enzc.ad.synth.alias_scopes import argument_facts
from enzc.ad.synth.cache import CacheManager
from enzc.ad.synth.cache_report import CacheAllocation
from enzc.ad.synth.call_derivatives import forward_call, reverse_call
from enzc.ad.synth.derived import start_derived
from enzc.ad.synth.dynamic_stack import free_dynamic_stack
from enzc.ad.synth.gradient_utils import GradientUtils
from enzc.ad.synth.lanes import each_lane, enter_lane, reject_vector_reverse, start_lanes
from enzc.ad.synth.mpi_calls import is_mpi, prepare_mpi
from enzc.ad.synth.parallel_adjoints import check_atomic_forward, flush_private_adjoints, record_run_end
from enzc.ad.synth.parallel_region import lower_fork
from enzc.ad.synth.parallel_sync import check_locked_sections, reverse_sync
from enzc.ad.synth.recompute import Planner
from enzc.ad.synth.reverse import check_store_forward, fwd, reverse_instruction
from enzc.ad.synth.sincos import add_partners, fuse as fuse_sincos
from enzc.ad.synth.signature import Derivatives, Signature, gradient_type, out_types
from enzc.ad.synth.undo_stores import UndoLog, replay_stores, restore_old_value, save_old_values
from enzc.ad.synth.store_once import store_invariant_caches_once
from enzc.ad.typeanalysis.analysis import TypeAnalysis

@dataclass
class Derivative:
    """A synthesized gradient and what was learned making it."""

    function: Function
    signature: Signature
    activity: Activity
    out_types: list[Type]
    caches: int = 0
    returns: list[tuple[BasicBlock, Value | None, list[Value]]] = field(default_factory=list)
    """Split mode: each forward block that ended in a `ret`, with the returned value
    and, for an active pointer return, its shadow in each lane."""
    cache_allocations: list[CacheAllocation] = field(default_factory=list)
    """What `--enzc-print-cache` reports (`cache_report`)."""


def synthesize_reverse(module: Module, layout: DataLayout, fn: Function, sig: Signature,
                       derivatives: Derivatives | None = None, split: bool = False) -> Derivative:
    """Build `diffe_<fn>` (see the module docstring) and add it to `module`.

    `derivatives` makes derived functions of callees; with `split` the result is the
    combined function `split_mode` cuts into an augmented forward and a reverse: it
    takes the return adjoint as a last parameter and seeds it in a block of its own."""
    g = module.add_function(f"{'split' if split else 'diffe'}_{fn.name}", gradient_type(fn, sig, split))
    g.linkage.words = ["internal"]
    g.header_suffix = [w for w in fn.header_suffix if w.startswith("personality")]  # landing pads need it
    types = derivatives.types if derivatives is not None else TypeAnalysis(module, layout)
    gu, extra = start_derived(module, layout, fn, sig.args, sig.active_return, g, width=sig.width, types=types,
                              site=sig.site)
    start_lanes(gu, [{a: s[k] for a, s in extra.items()} for k in range(sig.width)])
    original = gu.original
    gu.derivatives = derivatives
    gu.split = split
    gu.stable_args = sig.stable
    gu.parallel = sig.parallel
    gu.runtime_activity = sig.runtime_activity
    gu.distinct_args = sig.distinct
    gu.distinct_shadow_args = sig.distinct_shadows
    sincos_pairs = add_partners(gu)
    cache = CacheManager(gu)
    planner = Planner(gu, cache)
    gu.cache, gu.planner = cache, planner
    if sig.width > 1:
        reject_vector_reverse(gu)
    gu.setup_loops()
    forward_custom_calls(gu)
    if gu.parallel:
        check_locked_sections(gu)
    forward_blas_calls(gu)
    for inst in original.instructions():
        if isinstance(inst, Store):
            for _ in each_lane(gu):
                check_store_forward(gu, inst)
        elif isinstance(inst, AtomicRMW):
            check_atomic_forward(gu, inst)
        elif isinstance(inst, CallBase) and is_fork(inst):
            lower_fork(gu, inst)
        elif isinstance(inst, CallBase) and is_mpi(inst):
            prepare_mpi(gu, inst)  # the original call stays; its reverse is `mpi_calls.reverse_mpi`
        elif isinstance(inst, CallBase):
            forward_call(gu, inst)  # one augmented call for every lane
            for _ in each_lane(gu):
                copy_pointer_shadows(gu, inst)
                mirror_call(gu, inst)
    undo = save_old_values(gu)
    params = len(fn.args) + sig.width * sum(a.has_shadow for a in sig.args)
    d_return = list(g.args[params:])
    for k, d in enumerate(d_return):
        d.name = "d_return" + (f".{k}" if k else "")
    rv = _Reverse(gu, sig, d_return, undo)
    rv.build(cache, planner)
    fused = fuse_sincos(gu, sincos_pairs)
    returns = [(block, fused.get(value, value) if value is not None else None, [fused.get(s, s) for s in shadows])
               for block, value, shadows in rv.returns]
    store_invariant_caches_once(gu, cache)
    return Derivative(g, sig, gu.activity, out_types(fn, sig), cache.stats.values, returns,
                      cache.stats.allocations)


class _Reverse:
    """Emits the reverse blocks and the exit block of one derivative."""

    def __init__(self, gu: GradientUtils, sig: Signature, d_return: list[Value],
                 undo: UndoLog | None = None) -> None:
        self.gu = gu
        self.sig = sig
        self.d_return = d_return
        """Split mode: the seed of the return adjoint of each lane (parameters, not 1.0)."""
        self.undo = undo if undo is not None else UndoLog()
        """Once-executed stores to write back at their reverse and to replay at the end."""
        self.returns: list[tuple[BasicBlock, Value | None, list[Value]]] = []
        self.rev: dict[BasicBlock, BasicBlock] = {}
        self.live = _reaches_return(gu.original)
        self.primal_slot: Value | None = None

    def build(self, cache: CacheManager, planner: Planner) -> None:
        gu = self.gu
        g = gu.new
        blocks = [b for b in gu.original.blocks if b in self.live]
        for b in reversed(blocks):
            self.rev[b] = new_block(g, f"rev.{gu.label(b)}")
        self.exit = new_block(g, "rev.exit")
        for b in gu.original.blocks:
            if isinstance(b.terminator, Ret):
                self._seed(b)
        for b in reversed(blocks):
            self._reverse_block(b)
        planner.materialize()
        cache.emit_frees()
        self._exit()
        cache.finish(self.exit)
        cache.scope.finish([g], argument_facts(gu, self.sig))

    # -- forward returns -----------------------------------------------------------------
    def _seed(self, block: BasicBlock) -> None:
        gu = self.gu
        ret = gu.new_value(block.terminator)  # type: ignore[arg-type]
        assert isinstance(ret, Ret)
        value = block.terminator.value  # type: ignore[union-attr]
        b = gu.b
        b.position_before(ret)
        if gu.split:
            shadows = [gu.shadow(value) for _ in each_lane(gu)] if self.sig.active_return and value is not None \
                and carries_pointer(value.type) else []
            self.returns.append((ret.parent, ret.value, shadows))  # type: ignore[arg-type]
            seed_block = new_block(gu.new, f"seed.{gu.label(block)}")
            b.br(seed_block)
            ret.erase()
            b.position_at_end(seed_block)
        if self.sig.return_primal and value is not None:
            b.store(gu.new_value(value), self._primal_slot(value.type))
        if self.sig.active_return and value is not None and gu.has_adjoint(value):
            if not self.d_return and not isinstance(value.type, FloatType):
                raise gu.error(block.terminator, f"cannot seed a return value of type {value.type}",  # type: ignore[arg-type]
                               "return a double or float, or write results through an enzyme_dup pointer")
            for k in each_lane(gu):  # every lane's seed is 1.0, as Enzyme's
                seed = self.d_return[k] if self.d_return else const_fp(value.type, 1.0)  # type: ignore[arg-type]
                gu.accumulate(gu.adjoint_slot(value), value.type, seed)
        b.br(self.rev[block])
        if not gu.split:
            ret.erase()

    def _primal_slot(self, ty: Type) -> Value:
        """Entry slot holding f's result for `enzyme_primal_return` (set at each `ret`)."""
        if self.primal_slot is None:
            with self.gu.b.goto_entry_allocas():
                self.primal_slot = self.gu.b.alloca(ty, name="primal.slot")
        return self.primal_slot

    # -- reverse blocks -----------------------------------------------------------------
    def _reverse_block(self, block: BasicBlock) -> None:
        gu = self.gu
        act = gu.activity
        saved = gu.enter_context(self.rev[block], block)
        for inst in reversed(block.instructions):
            if isinstance(inst, Phi) or isinstance(inst, (Br, Switch, Ret, Unreachable)):
                continue
            if act.is_active_instruction(inst) and inst in gu.call_records:
                reverse_call(gu, inst)  # type: ignore[arg-type]  # one reverse call for every lane
            elif act.is_active_instruction(inst):
                for _ in each_lane(gu):
                    reverse_instruction(gu, inst)
            elif isinstance(inst, CallBase) and is_sync(inst):
                reverse_sync(gu, inst)
            if isinstance(inst, Store):
                restore_old_value(gu, self.undo, inst)
        phi_adjoints = [(phi, k, gu.take_adjoint(phi)) for k in each_lane(gu)
                        for phi in block.phis if gu.has_adjoint(phi)]
        self._dispatch(block, phi_adjoints)
        gu.leave_context(saved)

    def _dispatch(self, block: BasicBlock, phi_adjoints: list[tuple[Phi, int, Value]]) -> None:
        gu = self.gu
        b = gu.b
        preds = [p for p in block.predecessors if p in self.live]
        loop = gu.loops.loop_for(block)
        if block is gu.original.entry:
            b.br(self.exit)
        elif not preds:
            b.unreachable()
        elif loop is not None and loop.header is block and len(loop.latches) == 1:
            first = b.icmp("eq", gu.reverse_counter(loop), ConstantInt(gu.reverse_counter(loop).type, 0), "rev.first")  # type: ignore[arg-type]
            pre = loop.preheader
            assert pre is not None
            to_pre = self._edge(block, pre, phi_adjoints)
            to_latch = self._edge(block, loop.latches[0], phi_adjoints)
            b.cond_br(first, to_pre, to_latch)
        elif len(preds) == 1:
            b.br(self._edge(block, preds[0], phi_adjoints))
        else:
            inferred = self._inferred_predecessor(block, preds)
            if inferred is not None:
                cond, if_true, if_false = inferred
                c = fwd(gu, cond)
                b.cond_br(c, self._edge(block, if_true, phi_adjoints), self._edge(block, if_false, phi_adjoints))
            else:
                all_preds = block.predecessors
                index = gu.lookup(gu.predecessor_index(block))
                edges = [self._edge(block, p, phi_adjoints) if p in self.live else None for p in all_preds]
                default = next(e for e in edges if e is not None)
                b.switch(index, default, [(k, e) for k, e in enumerate(edges) if e is not None and e is not default])

    def _inferred_predecessor(self, block: BasicBlock, preds: list[BasicBlock]):
        """(condition, pred if true, pred if false) for if-then and if-else shapes."""
        gu = self.gu
        if len(preds) != 2 or len(block.predecessors) != 2:
            return None
        dom = gu.dt.idom(block)
        if dom is None or gu.loops.loops_of(dom) != gu.loops.loops_of(block):
            return None
        term = dom.terminator
        if not isinstance(term, Br) or not term.is_conditional:
            return None
        t, f = term.successors

        def arm(x: BasicBlock) -> BasicBlock | None:
            """The predecessor of `block` reached through successor `x` of `dom`."""
            if x is block:
                return dom
            if x.predecessors == [dom] and x.successors == [block]:
                return x
            return None

        pt, pf = arm(t), arm(f)
        if pt is None or pf is None or pt is pf or {pt, pf} != set(preds):
            return None
        return term.condition, pt, pf

    def _edge(self, block: BasicBlock, pred: BasicBlock, phi_adjoints: list[tuple[Phi, int, Value]]) -> BasicBlock:
        """Edge block on the reverse edge block -> pred (see the module docstring)."""
        gu = self.gu
        eb = new_block(gu.new, f"rev.{gu.label(block)}.from.{gu.label(pred)}")
        eb.append(Br(self.rev[pred]))
        saved = gu.enter_context(eb, block)
        for phi, k, d in phi_adjoints:
            enter_lane(gu, k)
            gu.add_adjoint(phi.incoming_value_for(pred), d)
        enter_lane(gu, 0)
        loop = gu.loops.loop_for(block)
        if loop is not None and loop.header is block:
            if loop.contains(pred):
                counter = gu.reverse_counter(loop)
                gu.set_reverse_counter(loop, gu.b.sub(counter, ConstantInt(counter.type, 1), "rev.i.next"))  # type: ignore[arg-type]
            else:
                gu.free_anchors[loop] = eb
        entered = [lp for lp in gu.loops.loops_of(pred) if not lp.contains(block)]
        for lp in entered:
            last = self._last_iteration(lp, block, len(entered) == 1)
            gu.set_reverse_counter(lp, last)
            record_run_end(gu, lp, last)
        gu.leave_context(saved)
        return eb

    def _last_iteration(self, loop, exit_block: BasicBlock, single: bool) -> Value:
        """The number of the last iteration `loop` ran before leaving to `exit_block`.

        Recomputed from an exact trip count when its operands are at hand (no
        storage); otherwise the forward pass's counter at the exit, looked up."""
        gu = self.gu
        tc = gu.trip_count(loop)
        if single and tc is not None and tc.exact:
            count = tc.emit(gu.b, lambda v: fwd(gu, v))
            return gu.b.sub(count, ConstantInt(count.type, 1), "rev.last")  # type: ignore[arg-type]
        return gu.lookup(gu.iteration_count_minus_one(loop, exit_block))

    # -- exit -------------------------------------------------------------------------------
    def _exit(self) -> None:
        gu = self.gu
        saved = gu.enter_context(self.exit, None)
        flush_private_adjoints(gu)
        replay_stores(gu, self.undo)
        b = gu.b
        if gu.stack_arena is not None:
            free_dynamic_stack(b, gu.module, gu.new_value(gu.stack_arena))
        values = []
        if self.primal_slot is not None:
            values.append(b.load(self.primal_slot.allocated_type, self.primal_slot, "primal"))  # type: ignore[attr-defined]
        for a, cls in zip(gu.original.args, self.sig.args):
            if cls is ArgActivity.OUT:
                values.extend(gu.take_adjoint(a) if gu.has_adjoint(a) else b.const_zero(a.type) for _ in each_lane(gu))
        ret_type = gu.new.function_type.ret
        if ret_type == VOID:
            b.ret_void()
        elif len(values) == 1:
            b.ret(values[0])
        else:
            agg: Value = b.const_undef(ret_type)
            for i, v in enumerate(values):
                agg = b.insert_value(agg, v, i, "ret")
            b.ret(agg)
        gu.leave_context(saved)


def _reaches_return(fn: Function) -> set[BasicBlock]:
    """Blocks from which a `ret` is reachable (others never run a reverse pass)."""
    live = {b for b in fn.blocks if isinstance(b.terminator, Ret)}
    work = list(live)
    while work:
        b = work.pop()
        for p in b.predecessors:
            if p not in live:
                live.add(p)
                work.append(p)
    return live


