"""Which forward values the reverse pass caches and which it recomputes: a minimum cut.

While the reverse visitor runs, every forward value it needs inside a loop (other
than induction variables and affine phis, which the reverse counters give for
free) gets a *placeholder*: a `freeze undef` at the reverse position, remembered
with the reverse context and the reverse counters of the value's loops at that
point. Once the whole reverse pass is known, `Planner.materialize` decides for all
of them at once:

- the forward dataflow graph below the needed values is built: cheap pure
  instructions (arithmetic, casts, compares, selects, GEPs, aggregate/vector ops,
  `fneg`, cheap intrinsics such as `llvm.fmuladd`) and loads of memory the
  function never writes can be recomputed from their operands; everything else
  (calls, loads of memory that may change, non-affine phis, ...) must be cached
  if anything below needs it;
- each node costs its bytes times an estimate of how often its loops run; values
  outside loops are free (`GradientUtils.lookup` keeps them on the stack);
- a minimum cut between the unrecomputable nodes and the needed ones picks the
  cheapest set to cache (`_min_cut`); among equal cuts the one nearest the needed
  values, so fewer instructions are recomputed;
- each placeholder is replaced by cache loads of cut values and the pure
  instructions between them, memoized per reverse block and counter snapshot.

Two loads of the same pointer with no possible write between them (same block, or
a chain of single-predecessor blocks in the same loops) are one node: the later one
reuses the earlier one's cache.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import AtomicRMW, BinaryOp, CallBase, Cast, CmpXchg, Compare, ExtractElement, ExtractValue
from enzc.ir.instructions import Fence, Freeze, GetElementPtr, InsertElement, InsertValue, Instruction, Load, Phi
from enzc.ir.instructions import Select, ShuffleVector, Store, UnaryOp, VAArg
from enzc.ir.loops import Loop
from enzc.ir.module import BasicBlock
from enzc.ir.transforms import clone_instruction
from enzc.ir.values import Value

from enzc.ad.analysis.calls import writes_memory
from enzc.ad.analysis.mincut import FlowGraph
from enzc.ad.synth.cache import CacheManager
from enzc.ad.synth.gradient_utils import GradientUtils

PURE = (BinaryOp, UnaryOp, Cast, Compare, Select, GetElementPtr, ExtractValue, InsertValue, ExtractElement,
        InsertElement, ShuffleVector)
"""Instructions the reverse pass may recompute from their operands."""

CHEAP_INTRINSICS = ("llvm.fmuladd.", "llvm.fma.", "llvm.fabs.", "llvm.copysign.", "llvm.minnum.", "llvm.maxnum.",
                    "llvm.minimum.", "llvm.maximum.")
"""Pure intrinsics cheap enough to recompute (name prefixes)."""

UNKNOWN_TRIPS = 16
"""Assumed iterations of a loop whose count is not a compile-time constant."""


@dataclass(eq=False)
class Placeholder:
    """A forward value needed at one reverse position, decided later."""

    value: Instruction
    stub: Freeze
    context: BasicBlock | None
    loops: list[Loop]
    counters: tuple[Value, ...]
    """The reverse counters of the value's loops (outermost first) at the stub."""


class Planner:
    """Collects placeholders during the reverse visitor, then cuts and materializes."""

    def __init__(self, gu: GradientUtils, cache: CacheManager) -> None:
        self.gu = gu
        self.cache = cache
        self.deferring = True
        self.placeholders: list[Placeholder] = []
        self._canon: dict[Instruction, Instruction] = {}

    # -- during the reverse visitor --------------------------------------------------------
    def placeholder(self, v: Instruction, loops: list[Loop]) -> Value:
        """A stand-in for forward value `v` at the builder's position."""
        gu = self.gu
        counters = tuple(gu.reverse_counter(L) for L in loops)
        stub = gu.b.insert(Freeze(IRBuilder.const_undef(v.type)), gu.label(v) + ".later")
        assert isinstance(stub, Freeze)
        self.placeholders.append(Placeholder(v, stub, gu.context, loops, counters))
        return stub

    # -- after it ------------------------------------------------------------------------
    def materialize(self) -> None:
        """Choose the caches and replace every placeholder; later lookups are immediate."""
        self.deferring = False
        if not self.placeholders:
            return
        gu = self.gu
        cut = self._plan([self.canon(p.value) for p in self.placeholders])
        order: dict[BasicBlock, list[Placeholder]] = {}
        for p in self.placeholders:
            blk = p.stub.parent
            assert blk is not None
            order.setdefault(blk, []).append(p)
        saved_memo, saved = gu.memo, (gu.b.block, gu.b.before, gu.context)
        memos: dict[tuple[BasicBlock, tuple[Value, ...]], dict] = {}
        replaced: dict[Value, Value] = {}
        try:
            for blk, ps in order.items():
                index = {inst: i for i, inst in enumerate(blk.instructions)}
                for p in sorted(ps, key=lambda p: index[p.stub]):
                    memo = memos.setdefault((blk, p.counters), {})
                    for L, c in zip(p.loops, p.counters):
                        memo[(gu.loop_state(L).counter, blk)] = c
                    gu.memo = memo
                    gu.context = p.context
                    gu.b.position_before(p.stub)
                    value = self._emit(p.value, cut, memo, blk)
                    p.stub.replace_all_uses_with(value)
                    p.stub.erase()
                    replaced[p.stub] = value
        finally:
            gu.memo = saved_memo
            gu.b.block, gu.b.before, gu.context = saved
        for k, val in list(gu.memo.items()):
            if val in replaced:
                gu.memo[k] = replaced[val]

    # -- graph -----------------------------------------------------------------------------
    def _loops(self, v: Value) -> list[Loop] | None:
        """The loops of forward instruction `v`; None when it is free (outside loops,
        computed in the reverse pass, or an induction variable)."""
        gu = self.gu
        if not isinstance(v, Instruction) or v.parent is None:
            return None
        ob = gu.block_map.get(v.parent)
        if ob is None:
            return None
        loops = gu.loops.loops_of(ob)
        if not loops:
            return None
        state = gu.header_states.get(v.parent)
        if state is not None and v is state.iv:
            return None
        return loops

    def _inputs(self, v: Instruction) -> list[Value] | None:
        """The operands `v` is recomputed from, or None when it cannot be recomputed."""
        gu = self.gu
        if isinstance(v, Phi):
            parts = gu._affine_parts(v, gu.loops_of_new(v)[-1])
            if parts is None:
                return None
            ops = [parts[0]]  # start + k * step: the reverse counter gives k
        elif isinstance(v, Load):
            orig = gu.original_of.get(v)
            if (not isinstance(orig, Load) or v.volatile or v.ordering is not None
                    or not gu._memory_unchanged(orig)):
                return None
            ops = [v.ptr]
        elif isinstance(v, PURE):
            ops = list(v.operands)
        elif isinstance(v, CallBase) and _cheap_intrinsic(v):
            ops = list(v.operands)
        else:
            return None
        mine = gu.loops_of_new(v)
        for o in ops:
            lo = self._loops(o)
            if lo is not None and mine[: len(lo)] != lo:
                return None  # defined in a loop `v` is outside of: not available per iteration
        return ops

    def canon(self, v: Instruction) -> Instruction:
        """The earliest load equal to load `v` (itself when there is none)."""
        got = self._canon.get(v)
        if got is None:
            got = self._canon[v] = self._equal_load(v) if isinstance(v, Load) else v
        return got

    def _equal_load(self, v: Load) -> Instruction:
        gu = self.gu
        orig = gu.original_of.get(v)
        if not isinstance(orig, Load) or v.volatile or v.ordering is not None:
            return v
        block = orig.parent
        assert block is not None
        loops = gu.loops.loops_of(block)
        pos = block.index_of(orig)
        best: Load = orig
        while True:
            for inst in reversed(block.instructions[:pos]):
                if (isinstance(inst, Load) and inst.ptr is orig.ptr and inst.type == orig.type
                        and not inst.volatile and inst.ordering is None):
                    best = inst
                elif _may_write(inst, gu):
                    return self._forward_of(best, v)
            preds = block.predecessors
            if len(preds) != 1 or gu.loops.loops_of(preds[0]) != loops or preds[0] is block:
                return self._forward_of(best, v)
            block = preds[0]
            pos = len(block.instructions)

    def _forward_of(self, orig: Load, v: Load) -> Instruction:
        nv = self.gu.new_value(orig)
        return nv if isinstance(nv, Load) else v

    def _plan(self, needed: list[Instruction]) -> set[Instruction]:
        """The forward values to cache: a minimum cut below `needed`."""
        nodes: dict[Instruction, int] = {}
        inputs: dict[Instruction, list[Instruction] | None] = {}
        work = list(needed)
        while work:
            v = work.pop()
            if v in nodes:
                continue
            nodes[v] = len(nodes)
            ops = self._inputs(v)
            if ops is None:
                inputs[v] = None
                continue
            deps = []
            for o in ops:
                if self._loops(o) is not None:
                    oc = self.canon(o)  # type: ignore[arg-type]
                    deps.append(oc)
                    work.append(oc)
            inputs[v] = deps
        n = len(nodes)
        source, sink = 2 * n, 2 * n + 1
        flow = FlowGraph(2 * n + 2)
        costs = {v: self._cost(v) for v in nodes}
        inf = sum(costs.values()) + 1
        for v, k in nodes.items():
            flow.add(2 * k, 2 * k + 1, costs[v])
            deps = inputs[v]
            if deps is None:
                flow.add(source, 2 * k, inf)
            else:
                for o in deps:
                    flow.add(2 * nodes[o] + 1, 2 * k, inf)
        for v in set(needed):
            flow.add(2 * nodes[v] + 1, sink, inf)
        near_sink = flow.min_cut_sink_side(source, sink)
        return {v for v, k in nodes.items() if 2 * k not in near_sink and 2 * k + 1 in near_sink}

    def _cost(self, v: Instruction) -> int:
        """Bytes of `v` times the estimated runs of the loops it varies in (its cache's size)."""
        gu = self.gu
        runs = 1
        for L in gu.cache_loops(v):
            tc = gu.trip_count(L)
            count = tc.constant() if tc is not None else None
            runs *= max(1, count) if count is not None else UNKNOWN_TRIPS
        return max(1, gu.layout.alloc_size_of(v.type)) * runs

    # -- materialization ---------------------------------------------------------------------
    def _emit(self, v: Instruction, cut: set[Instruction], memo: dict, blk: BasicBlock) -> Value:
        """Forward value `v` at the builder's position, from caches and recomputation."""
        gu = self.gu
        stack: list[tuple[Value, bool]] = [(v, False)]
        while stack:
            x, ready = stack.pop()
            key = (x, blk)
            if key in memo:
                continue
            if self._loops(x) is None:
                memo[key] = gu.lookup(x)
                continue
            assert isinstance(x, Instruction)
            c = self.canon(x)
            if c is not x:
                if ready:
                    memo[key] = memo[(c, blk)]
                else:
                    stack += [(x, True), (c, False)]
                continue
            if x in cut:
                memo[key] = self.cache.load(x)
                continue
            ops = self._inputs(x)
            assert ops is not None, "a value that cannot be recomputed must be in the cut"
            if not ready:
                stack.append((x, True))
                stack += [(o, False) for o in ops if not isinstance(o, BasicBlock)]
                continue
            if isinstance(x, Phi):  # affine: `lookup` finds its start in the memo
                memo[key] = gu.lookup(x)
                continue
            new = clone_instruction(x, debug=False)
            for i, o in enumerate(new.operands):
                if not isinstance(o, BasicBlock) and (o, blk) in memo:
                    new.set_operand(i, memo[(o, blk)])
            memo[key] = gu.b.insert(new, gu.label(x) + ".re")
        return memo[(v, blk)]


def _cheap_intrinsic(call: CallBase) -> bool:
    fn = call.called_function
    name = fn.name if fn is not None else None
    return name is not None and name.startswith(CHEAP_INTRINSICS) and not call.bundle_tags and call.num_blocks == 0


def _may_write(inst: Instruction, gu: GradientUtils) -> bool:
    """Whether original instruction `inst` may write any memory (conservative)."""
    if isinstance(inst, (Store, AtomicRMW, CmpXchg, Fence, VAArg)):
        return True
    if isinstance(inst, CallBase):
        return not _cheap_intrinsic(inst) and writes_memory(inst, gu.module)
    return False
