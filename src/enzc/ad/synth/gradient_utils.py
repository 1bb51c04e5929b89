"""State shared while synthesizing one derivative: value maps, adjoints, shadows, lookups.

Names: the *original* is the prepared copy of the user's function (`preprocess`);
the *new* function holds the forward pass (a clone of the original, extended with
induction variables, shadows and cache stores) followed by the reverse blocks.

- `new_value(v)`: the forward clone of an original value.
- `shadow(v)`: the forward shadow of an active original pointer.
- `adjoint slots`: one zero-initialised entry alloca per active original value;
  reverse code accumulates into them (load/fadd/store) and zeroes them when the
  value's own adjoint is consumed, so loop iterations start fresh. SROA/mem2reg
  turn them back into registers after differentiation.
- `lookup(v)`: a forward value made available at the current reverse position:
  used directly when its block dominates every return; spilled to an entry alloca
  when outside loops; inside loops induction variables and affine phis come from
  the reverse counters, other values get a placeholder that `recompute.Planner`
  replaces after the reverse pass (cached per iteration by `cache.CacheManager`
  or recomputed, as a minimum cut decides).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from enzc.ir.builder import IRBuilder
from enzc.ir.cfg import edge_count
from enzc.ir.datalayout import DataLayout
from enzc.ir.dominators import DominatorTree
from enzc.ir.instructions import Alloca, BinaryOp, CallBase, Cast, Compare, ExtractElement, ExtractValue, GetElementPtr
from enzc.ir.instructions import InsertElement, InsertValue, Instruction, Load, Phi, Ret, Select, ShuffleVector
from enzc.ir.libc import declare
from enzc.ir.loops import Loop, LoopInfo
from enzc.ir.module import BasicBlock, Function, GlobalVariable, Module
from enzc.ir.transforms import clone_instruction
from enzc.ir.types import I1, I8, I32, I64, FloatType, IntType, PointerType, Type, has_packed_struct
from enzc.ir.values import Argument, Constant, ConstantInt, GlobalValue, Value

from enzc.ad.analysis.activity import Activity, carries_float, carries_pointer, float_leaves, slot_numbers
from enzc.ad.analysis.allocations import allocator_of
from enzc.ad.analysis.integer_addresses import IntegerAddress, integer_address, pointer_difference_steps
from enzc.ad.analysis.globals_shadow import base_global, has_zero_shadow, shadow_constant, zero_sink
from enzc.ad.analysis.loop_variance import LoopVariance
from enzc.ad.analysis.memory_facts import MemoryFacts, into_zero_globals, is_threadlocal_address
from enzc.ad.analysis.tripcount import TripCount, trip_count
from enzc.ad.diagnostics import ad_error
from enzc.ad.memory.heap import shadow_allocation
from enzc.ad.memory.mirrored_calls import is_mirrored_call, mirrored_shadow
from enzc.ad.rules.library_hints import library_hint
from enzc.ad.synth.adjoint_zero import adjoint_zero
from enzc.ad.synth.rematerialize import argument_expression, recompute
from enzc.ad.synth.signature import CallRecord, Derivatives
from enzc.ad.typeanalysis.analysis import TypeAnalysis
from enzc.ad.typeanalysis.results import TypeResults

MAX_GLOBAL_SINK = 64 * 1024
"""Largest global whose zero shadow is a stack copy (`GradientUtils._zero_global_sink`)."""

RECOMPUTE_DEPTH = 6
"""How deep a chain of pure instructions the reverse pass recomputes instead of caching."""

_PURE = (BinaryOp, Cast, Compare, Select, GetElementPtr, ExtractValue, InsertValue, ExtractElement,
         InsertElement, ShuffleVector)


class LoopValueCache(Protocol):
    """Where `lookup` loads a loop value it does not recompute (`cache.CacheManager`)."""

    def load(self, value: Instruction) -> Value: ...


class LoopValuePlanner(Protocol):
    """Defers the cache-or-recompute choice of loop values (`recompute.Planner`)."""

    deferring: bool

    def placeholder(self, v: Instruction, loops: list[Loop]) -> Value: ...


@dataclass
class LoopState:
    """Forward induction variable and reverse counter of one loop."""

    iv: Phi
    """0, 1, 2, ... in the forward header."""
    setup_tail: Instruction
    """Last instruction of the header's setup code (iv increment, cache growth)."""
    counter: Alloca
    """i64 slot holding the reverse pass's iteration number."""


class GradientUtils:
    """See the module docstring."""

    def __init__(self, module: Module, original: Function, user_name: str, activity: Activity,
                 new: Function, value_map: dict[Value, Value], layout: DataLayout,
                 type_analysis: TypeAnalysis) -> None:
        self.module = module
        self.original = original
        self.user_name = user_name
        self.activity = activity
        self.has_rule = activity.has_rule
        """The callees the derivative rule table covers (for `MemoryFacts`)."""
        self.new = new
        self.value_map = value_map
        self.layout = layout
        self.dt = DominatorTree(original)
        self.loops = LoopInfo(original, self.dt)
        self.block_map: dict[BasicBlock, BasicBlock] = {
            nv: ov for ov, nv in value_map.items() if isinstance(ov, BasicBlock)}  # type: ignore[misc]
        self.original_of: dict[Value, Value] = {nv: ov for ov, nv in value_map.items()}
        self.return_blocks = [b for b in original.blocks if isinstance(b.terminator, Ret)]
        self.b = IRBuilder()
        self.context: BasicBlock | None = None
        """The original block whose reverse is being emitted (defines the loop context)."""
        self.adjoint_slots: dict[Value, Alloca] = {}
        self.shadows: dict[Value, Value] = {}
        self.width, self.lane, self.lane_maps = 1, 0, [(self.shadows, self.adjoint_slots)]  # see lanes.py
        self.spills: dict[Value, Alloca] = {}
        self.memo: dict[tuple[Value, BasicBlock], Value] = {}
        self.loop_states: dict[Loop, LoopState] = {}
        self.header_states: dict[BasicBlock, LoopState] = {}
        self.limits: dict[tuple[Loop, BasicBlock], Phi] = {}
        self.pred_phis: dict[BasicBlock, Phi] = {}
        self.free_anchors: dict[Loop, BasicBlock] = {}
        self._trip_counts: dict[Loop, TripCount | None] = {}
        self._memory: MemoryFacts | None = None
        self._variance: LoopVariance | None = None
        self.slots = slot_numbers(original)
        self.cache: LoopValueCache | None = None
        """Reverse mode: the caches of loop values (set by `combined`, with `planner`)."""
        self.planner: LoopValuePlanner | None = None
        """Defers cache-or-recompute decisions to a minimum cut after the reverse pass."""
        self.derivatives: Derivatives | None = None
        """Makes the derived functions of callees (`call_derivatives`)."""
        self.split = False
        """Split mode: the forward and reverse run in separate functions, so memory
        outside this function's own stack may change between them."""
        self.call_records: dict[Value, CallRecord] = {}
        """Active calls to defined functions: their derived pair and forward tape."""
        self.fork_records: dict[Value, object] = {}
        """Active OpenMP fork calls: what their reverse needs (`parallel_region`)."""
        self.mpi_records: dict[Value, Value] = {}
        """Non-blocking MPI transfers and waits: their records (`mpi_requests`)."""
        self.stable_args: frozenset[int] = frozenset()
        """Split mode: argument indices whose memory stays unchanged until the reverse."""
        self.parallel = False
        """Run by every thread of an OpenMP team (`Signature.parallel`)."""
        self.runtime_activity = False
        """Enzyme's runtime activity (`Signature.runtime_activity`, `runtime_activity`)."""
        self.runtime_scratch: dict[Type, Value] = {}
        """Runtime activity: per type, the slot writes through inactive shadows go to."""
        self.private_adjoints: dict[tuple[Value, Type], Alloca] = {}
        """Parallel reverse: thread-private sums of the adjoints of loads from one
        invariant shared address, flushed once at the exit (`parallel_adjoints`)."""
        self.iteration_disjoint: object | None = None
        self.run_ends: dict[Loop, Alloca] = {}
        """Parallel reverse: per work-sharing loop, the i64 slot holding the last
        iteration number of its current run (`parallel_adjoints.record_run_end`)."""
        """Parallel reverse: `omp_disjoint.IterationDisjoint` of the original, made on first use."""
        self.distinct_args: frozenset[tuple[int, int]] = frozenset()
        """Pairs of arguments the call sites pass into distinct objects (`Signature.distinct`)."""
        self.distinct_shadow_args: frozenset[tuple[int, int]] = frozenset()
        """Pairs of arguments whose shadows are distinct objects (`Signature.distinct_shadows`)."""
        self.type_analysis = type_analysis
        """The module's type analysis (one for every derivative)."""
        self._types: TypeResults | None = None
        self.stack_arena: Value | None = None
        """The arena holding the original's dynamic stack memory (`dynamic_stack`), if any."""
        self.custom_tapes: dict[Value, Value | None] = {}
        """Calls with a custom derivative: the tape their augmented call returned."""
        self.blas_tapes: dict[Value, object] = {}
        """BLAS calls: the scalars and caches their forward pass kept (`rules.blas_reverse`)."""

    @property
    def types(self) -> TypeResults:
        """Type analysis of the original, computed on first use (most gradients never
        ask). From its IR types alone when the derivative serves every call site,
        else in its one call site's context (`site_types`)."""
        if self._types is None:
            self._types = self.type_analysis.analyze(self.original)
        return self._types

    def label(self, v: Value) -> str:
        """A readable name for new values made from `v`: its name, or its slot number."""
        if v.name is not None:
            return v.name
        slot = self.slots.get(self.original_of.get(v, v))
        return str(slot) if slot is not None else "v"

    # -- errors --------------------------------------------------------------------------
    def error(self, inst: Instruction | None, what: str, hint: str | None = None):
        return ad_error(self.module, inst, self.user_name, what, hint)

    # -- maps ----------------------------------------------------------------------------
    def new_value(self, v: Value) -> Value:
        return self.value_map.get(v, v)

    def new_block_of(self, block: BasicBlock) -> BasicBlock:
        return self.value_map[block]  # type: ignore[return-value]

    def original_block(self, new_block: BasicBlock) -> BasicBlock | None:
        return self.block_map.get(new_block)

    def loops_of_new(self, v: Instruction) -> list[Loop]:
        assert v.parent is not None
        ob = self.block_map[v.parent]
        return self.loops.loops_of(ob)

    def available_at(self, v: Value, block: BasicBlock) -> bool:
        """Whether original value `v` can be used at the end of original `block`."""
        if not isinstance(v, Instruction):
            return True
        assert v.parent is not None
        return self.dt.block_dominates(v.parent, block)

    def trip_count(self, loop: Loop) -> TripCount | None:
        if loop not in self._trip_counts:
            self._trip_counts[loop] = trip_count(loop, self.dt)
        return self._trip_counts[loop]

    # -- reverse context -----------------------------------------------------------------
    def enter_context(self, new_block: BasicBlock, original_block: BasicBlock | None):
        """Point the builder at the end of `new_block`, reversing `original_block`."""
        saved = (self.b.block, self.b.before, self.context)
        self.b.position_before_terminator(new_block)
        self.context = original_block
        return saved

    def leave_context(self, saved) -> None:
        self.b.block, self.b.before, self.context = saved

    # -- loops ---------------------------------------------------------------------------
    def setup_loops(self) -> None:
        """Give every loop a canonical induction variable and a reverse counter."""
        b = IRBuilder()
        for loop in self.loops:
            header = self.new_block_of(loop.header)
            pre = self.new_block_of(loop.preheader)  # type: ignore[arg-type]
            b.position_after_phis(header)
            iv = b.phi(I64, [], "iv")
            nxt = b.add(iv, ConstantInt(I64, 1), "iv.next", flags=("nuw", "nsw"))
            iv.add_incoming(ConstantInt(I64, 0), pre)
            for latch in loop.latches:
                nl = self.new_block_of(latch)
                for _ in range(edge_count(nl, header)):
                    iv.add_incoming(nxt, nl)
            with b.goto_entry_allocas():
                counter = b.alloca(I64, name="rev.iv")
            state = LoopState(iv, nxt, counter)  # type: ignore[arg-type]
            self.loop_states[loop] = state
            self.header_states[header] = state

    def loop_state(self, loop: Loop) -> LoopState:
        return self.loop_states[loop]

    def loop_state_of_header(self, new_block: BasicBlock) -> LoopState | None:
        return self.header_states.get(new_block)

    def reverse_counter(self, loop: Loop) -> Value:
        """The current reverse iteration of `loop` (i64), at the builder's position."""
        key = (self.loop_states[loop].counter, self.b.block)
        if key not in self.memo:
            self.memo[key] = self.b.load(I64, self.loop_states[loop].counter, "rev.i")  # type: ignore[index]
        return self.memo[key]

    def set_reverse_counter(self, loop: Loop, value: Value) -> None:
        self.b.store(value, self.loop_states[loop].counter)
        self.memo.pop((self.loop_states[loop].counter, self.b.block), None)  # type: ignore[arg-type]

    def iteration_count_minus_one(self, loop: Loop, exit_block: BasicBlock) -> Value:
        """Forward value in `exit_block` (original): the last iteration number of `loop`."""
        key = (loop, exit_block)
        phi = self.limits.get(key)
        if phi is None:
            nb = self.new_block_of(exit_block)
            b = IRBuilder()
            b.position_at_start(nb)
            iv = self.loop_states[loop].iv
            phi = b.phi(I64, [(iv, p) for p in nb.predecessors for _ in range(edge_count(p, nb))], "last.iv")  # type: ignore[assignment]
            self.limits[key] = phi  # type: ignore[assignment]
        return phi  # type: ignore[return-value]

    def predecessor_index(self, block: BasicBlock) -> Phi:
        """Forward phi in `block` (original) numbering the predecessor it came from."""
        phi = self.pred_phis.get(block)
        if phi is None:
            nb = self.new_block_of(block)
            preds = block.predecessors
            ty = I8 if len(preds) < 128 else I32
            b = IRBuilder()
            b.position_at_start(nb)
            phi = b.phi(ty, [(ConstantInt(ty, k), self.new_block_of(p)) for k, p in enumerate(preds)
                             for _ in range(edge_count(p, block))], "pred")  # type: ignore[assignment]
            self.pred_phis[block] = phi  # type: ignore[assignment]
        return phi  # type: ignore[return-value]

    def free_anchor(self, loop: Loop) -> BasicBlock:
        return self.free_anchors[loop]

    # -- adjoints ------------------------------------------------------------------------
    def adjoint_slot(self, v: Value) -> Alloca:
        slot = self.adjoint_slots.get(v)
        if slot is None:
            b = IRBuilder(self.new.entry)
            with b.goto_entry_allocas():
                slot = b.alloca(v.type, name=f"d.{self.label(v)}{f'.{self.lane}' if self.lane else ''}")  # type: ignore[assignment]
                b.store(adjoint_zero(v.type), slot)
            self.adjoint_slots[v] = slot  # type: ignore[assignment]
        return slot  # type: ignore[return-value]

    def has_adjoint(self, v: Value) -> bool:
        if isinstance(v, (Constant, GlobalValue)) or self.activity.has_shadow(v):
            return False
        return self.activity.is_active_value(v) and carries_float(v.type)

    def take_adjoint(self, v: Value) -> Value:
        """Load and clear the adjoint of `v` at the builder's position."""
        slot = self.adjoint_slot(v)
        d = self.b.load(v.type, slot, "d." + self.label(v) + ".val")
        self.b.store(adjoint_zero(v.type), slot)
        return d

    def add_adjoint(self, v: Value, delta: Value) -> None:
        """adj(v) += delta; nothing for constants and inactive values."""
        if not self.has_adjoint(v):
            return
        self.accumulate(self.adjoint_slot(v), v.type, delta)

    def accumulate(self, ptr: Value, ty: Type, delta: Value, align: int | None = None) -> None:
        """*ptr += delta, elementwise over the floating leaves of aggregates. `align`: what
        the original access promised (a shadow is only as aligned as its primal: Eigen's
        `load <2 x double>, align 1` must not become an aligned vector load)."""
        b = self.b
        if isinstance(ty.scalar, FloatType):
            old = b.load(ty, ptr, "acc", align=align)
            b.store(b.fadd(old, delta, "acc.sum"), ptr, align=align)
            return
        packed = has_packed_struct(ty)
        for path, leaf in float_leaves(ty):
            part = b.extract_value(delta, list(path), "acc.part")
            addr = b.gep(ty, ptr, [0, *path], "acc.addr", inbounds=True)
            leaf_align = None if align is None else 1 if packed else min(align, self.layout.abi_align(leaf))
            old = b.load(leaf, addr, "acc", align=leaf_align)
            b.store(b.fadd(old, part, "acc.sum"), addr, align=leaf_align)

    # -- shadows -------------------------------------------------------------------------
    def shadow(self, v: Value, user: Instruction | None = None) -> Value:
        """The forward shadow of original pointer `v` (created on first request);
        `user` is the phi or select that needs it (where an error points)."""
        got = self.shadows.get(v)
        if got is not None:
            return got
        if isinstance(v, Constant) and self.activity.has_shadow(v):
            sh = self.shadows[v] = shadow_constant(self.module, v)  # a global with !enzyme_shadow
            return sh
        if isinstance(v, Constant) and not isinstance(v, GlobalValue) and base_global(v) is None:
            return v  # null / undef: its shadow is the same constant
        if isinstance(v, Constant) and isinstance(g := base_global(v), GlobalVariable) and has_zero_shadow(g):
            sh = self.shadows[v] = self._zero_global_sink(v, g)
            return sh
        if isinstance(v, Constant) and (g := base_global(v)) is not None:
            raise self.error(None, f"the global '{g.name}' is used as active memory but has no shadow",
                             "give it a shadow (__enzyme_shadow_global, !enzyme_shadow), declare it const if "
                             "the program never writes it, or mark it inactive (__enzyme_inactive_global)")
        if isinstance(v, Instruction) and derived_from_null(v):
            return self.new_value(v)  # null + offset (an empty range's end): the shadow of null is null
        if not self.activity.has_shadow(v) and not into_zero_globals(v):
            if self.runtime_activity:  # runtime activity: the primal stands for "inactive"
                return self.new_value(v)
            raise self.error(v if isinstance(v, Instruction) else user,
                             f"pointer {_spelling(v)} needs a shadow but does not point into memory "
                             "the AD tracks (mixed active and inactive pointers)",
                             "a pointer that may point into active data or into memory without a shadow (an "
                             "enzyme_const argument, a pointer loaded from one): pass that memory with "
                             "enzyme_dup and a zeroed shadow buffer, or read the two through separate "
                             "pointers (if (c) v = a[i]; else v = x[j];)")
        assert isinstance(v, Instruction), "arguments' shadows are registered up front"
        nv = self.new_value(v)
        assert isinstance(nv, Instruction)
        b = IRBuilder()
        name = (v.name or "p") + "'"
        match v:
            case Phi():
                b.position_at_start(nv.parent)  # type: ignore[arg-type]
                sh = b.phi(v.type, [], name)
                self.shadows[v] = sh
                for val, blk in v.incoming:
                    sh.add_incoming(self.shadow(val, v), self.new_block_of(blk))  # type: ignore[arg-type]
                return sh
            case Alloca():
                sh = self._shadow_alloca(v, nv, name)
            case GetElementPtr():
                base = self.shadow(v.ptr)
                b.position_after(nv)
                indices = [self._index_on_shadows(b, i) for i in v.indices]
                sh = b.insert(GetElementPtr(v.source_type, base, indices, v.flags, result_type=v.type), name)
            case Cast() if v.opcode in ("bitcast", "addrspacecast"):
                base = self.shadow(v.operand(0))
                b.position_after(nv)
                sh = b.cast(v.opcode, base, v.type, name)
            case Cast() if (address := integer_address(v)) is not None:
                sh = self._integer_address_shadow(v, nv, address, name)
            case Select():
                t, f = self.shadow(v.true_value, v), self.shadow(v.false_value, v)
                b.position_after(nv)
                sh = b.select(self.new_value(v.condition), t, f, name)
            case Load():
                src = self.shadow(v.ptr)
                b.position_after(nv)
                sh = b.load(v.type, src, name, align=v.align)
            case ExtractValue():
                agg = self.shadow(v.operand(0))
                b.position_after(nv)
                sh = b.extract_value(agg, list(v.indices), name)
            case InsertValue():
                agg, val = v.operand(0), v.operand(1)
                sagg = self.shadow(agg) if self.activity.has_shadow(agg) or isinstance(agg, Constant) \
                    else self.new_value(agg)
                sval = self.shadow(val) if carries_pointer(val.type) else self.new_value(val)
                b.position_after(nv)
                sh = b.insert_value(sagg, sval, list(v.indices), name)
            case CallBase() if is_threadlocal_address(v):
                base = self.shadow(v.args[0], v)  # the shadow global, itself thread-local
                b.position_after(nv)
                sh = b.call(v.called_function, [base], name)  # type: ignore[arg-type]
            case CallBase() if allocator_of(v) is not None or is_mirrored_call(v):
                sh = (shadow_allocation if allocator_of(v) is not None else mirrored_shadow)(self, v, nv, name)
            case _:
                callee = v.called_function if isinstance(v, CallBase) else None
                hint = library_hint(callee.name or "") if callee is not None else None
                raise self.error(v, f"cannot compute the shadow of '{v.opcode}' (a pointer into active memory)",
                                 hint or "pass such pointers as function arguments with enzyme_dup")
        self.shadows[v] = sh
        return sh

    def _index_on_shadows(self, b: IRBuilder, index: Value) -> Value:
        """A shadow address's index: the primal's, or, where it is a difference of
        pointers that have shadows, the same difference of their shadows
        (`integer_addresses.pointer_difference_steps`)."""
        steps = pointer_difference_steps(index)
        pointers = [s.operand(0) for s in steps if isinstance(s, Cast) and s.opcode == "ptrtoint"]
        if not steps or not all(self.activity.has_shadow(p) for p in pointers):
            return self.new_value(index)
        replayed: dict[Value, Value] = {}

        def replay(x: Value) -> Value:
            if x not in steps:
                return self.new_value(x)
            if x not in replayed:
                if isinstance(x, Cast) and x.opcode == "ptrtoint":
                    replayed[x] = b.ptrtoint(self.shadow(x.operand(0)), x.type, "shadow.bits")
                elif isinstance(x, BinaryOp):
                    replayed[x] = b.binop(x.opcode, replay(x.lhs), replay(x.rhs), "shadow.offset")
                else:
                    assert isinstance(x, Cast)
                    replayed[x] = b.cast(x.opcode, replay(x.operand(0)), x.type, "shadow.offset")
            return replayed[x]

        return replay(index)

    def _integer_address_shadow(self, v: Instruction, nv: Instruction, address: IntegerAddress,
                                name: str) -> Value:
        """The same steps on the shadow (`integer_addresses`): the shadow pointer's
        bits, or the same bits of the shadow memory."""
        base = self.shadow(address.shadowed, v)
        b = IRBuilder()
        b.position_after(nv)
        root, *rest = address.steps
        if isinstance(root, Load):
            bits: Value = b.load(root.type, base, name, align=root.align)
        else:
            bits = b.ptrtoint(base, root.type, name)
        previous: Instruction = root
        for step in rest:
            operands = [bits if o is previous else self.new_value(o) for o in step.operands]
            if isinstance(step, BinaryOp):
                bits = b.binop(step.opcode, *operands, name)  # no nuw/disjoint: the shadow's bits differ
            elif isinstance(step, ExtractElement):
                bits = b.extract_element(operands[0], operands[1], name)
            else:
                bits = b.cast(step.opcode, operands[0], step.type, name)
            previous = step
        return b.inttoptr(bits, v.type, name)

    def _shadow_alloca(self, v: Alloca, nv: Instruction, name: str) -> Value:
        """A zero-filled twin of `v`: static allocas in the entry, dynamic ones in place."""
        static = v.parent is self.original.entry and v.count is None
        count = self.new_value(v.count) if v.count is not None else None
        return self._zeroed_alloca(v.allocated_type, v.align, name, None if static else nv, count)

    def _zero_global_sink(self, v: Constant, g: GlobalVariable) -> Value:
        """The shadow of a global without derivatives (`has_zero_shadow`) where a
        pointer into it stands for shadowed memory: a zeroed global of the same size
        (`globals_shadow.zero_sink`, cleared before each derivative call), so
        derivatives stored there go nowhere and tangents read there are 0 (`v` is `g`
        or a constant address over it: the same offset into the sink)."""
        sink = self.shadows.get(g)
        if sink is None:
            size = self.layout.alloc_size_of(g.value_type)
            if size > MAX_GLOBAL_SINK:
                raise self.error(None, f"the constant global '{g.name}' ({size} bytes) is used where active "
                                       "memory is: its zero derivative would need a copy of that size, "
                                       "cleared before every derivative call",
                                 "read it through a pointer of its own, not one that may also point into active "
                                 "data (if (c) v = table[i]; else v = x[j];)")
            sink = self.shadows[g] = zero_sink(self.module, g)
        if v is g:
            return sink
        b = IRBuilder()  # a constant address over @g: the same offset into the sink
        b.position_before(next(i for i in self.new.entry.instructions if not isinstance(i, Alloca)))
        offset = b.sub(b.ptrtoint(v, I64, "off"), b.ptrtoint(g, I64, "base"), "off")
        return b.gep(I8, sink, [offset], f"{g.name}.zero.addr'")

    def _zeroed_alloca(self, ty: Type, align: int | None, name: str, after: Instruction | None = None,
                       count: Value | None = None) -> Instruction:
        """A zero-filled alloca: in the entry block, or (`after`) right after an instruction."""
        b = IRBuilder()
        if after is None:
            b.position_at_start(self.new.entry)
        else:
            b.position_after(after)
        sh = b.insert(Alloca(ty, count, align), name)
        if after is None:
            b.position_before(next(i for i in self.new.entry.instructions if not isinstance(i, Alloca)))
        else:
            b.position_after(sh)
        nbytes: Value = ConstantInt(I64, self.layout.alloc_size_of(ty))
        if count is not None:
            wide = count if count.type == I64 else b.zext(count, I64, "n")
            nbytes = b.mul(wide, nbytes, "bytes")
        b.call(declare(self.module, "llvm.memset.p0.i64"), [sh, ConstantInt(I8, 0), nbytes, ConstantInt(I1, 0)])
        return sh

    # -- lookup --------------------------------------------------------------------------
    def lookup(self, v: Value) -> Value:
        """Forward value `v` (of the new function) at the current reverse position."""
        if not isinstance(v, Instruction):
            return v
        blk = v.parent
        ob = self.block_map.get(blk) if blk is not None else None
        if ob is None:
            return v  # computed in the reverse pass itself
        key = (v, self.b.block)
        got = self.memo.get(key)  # type: ignore[arg-type]
        if got is not None:
            return got
        loops_v = self.loops.loops_of(ob)
        dominates = not loops_v and all(self.dt.block_dominates(ob, r) for r in self.return_blocks)
        if not loops_v and (self.split or not dominates) and argument_expression(v):
            # cheaper than a tape field or a spill; computed afresh at each use (not memoized:
            # a later lookup may sit earlier in the block, e.g. the planner's replacements)
            return recompute(self.b, v, {})
        result: Value
        if not loops_v:
            if dominates:
                result = v
            else:
                result = self.b.load(v.type, self._spill(v), self.label(v) + ".spilled")
        else:
            ctx_loops = self.loops.loops_of(self.context) if self.context is not None else []
            if ctx_loops[: len(loops_v)] != loops_v:
                raise self.error(self.original_of.get(v) if isinstance(self.original_of.get(v), Instruction) else None,
                                 "internal error: a loop value is needed outside its loop in the reverse pass")
            result = self._in_loop(v, loops_v)
        self.memo[key] = result  # type: ignore[index]
        return result

    def _spill(self, v: Instruction) -> Alloca:
        slot = self.spills.get(v)
        if slot is None:
            b = IRBuilder(self.new.entry)
            with b.goto_entry_allocas():
                slot = b.alloca(v.type, name=self.label(v) + ".spill")  # type: ignore[assignment]
            if isinstance(v, Phi):
                b.position_after_phis(v.parent)  # type: ignore[arg-type]
            else:
                b.position_after(v)
            b.store(v, slot)
            self.spills[v] = slot  # type: ignore[assignment]
        return slot  # type: ignore[return-value]

    def _in_loop(self, v: Instruction, loops_v: list[Loop]) -> Value:
        state = self.header_states.get(v.parent)  # type: ignore[arg-type]
        if state is not None and v is state.iv:
            return self.reverse_counter(loops_v[-1])
        if isinstance(v, Phi):
            affine = self._affine(v, loops_v[-1])
            if affine is not None:
                return affine
        assert self.cache is not None and self.planner is not None, "loop values are looked up in reverse mode"
        if self.planner.deferring:
            return self.planner.placeholder(v, loops_v)
        if self._recomputable(v, loops_v[-1], 0):
            ops = [self.lookup(o) if not isinstance(o, BasicBlock) else o for o in v.operands]
            new = clone_instruction(v, debug=False)
            for k, o in enumerate(ops):
                new.set_operand(k, o)
            return self.b.insert(new, self.label(v) + ".re")
        return self.cache.load(v)

    def _recomputable(self, v: Value, loop: Loop, depth: int) -> bool:
        if not isinstance(v, Instruction):
            return True
        blk = v.parent
        ob = self.block_map.get(blk) if blk is not None else None
        if ob is None or not loop.contains(ob):
            return True  # available from outside the loop
        if depth > RECOMPUTE_DEPTH:
            return False
        if isinstance(v, Phi):
            state = self.header_states.get(blk)  # type: ignore[arg-type]
            return (state is not None and v is state.iv) or self._affine_parts(v, loop) is not None
        if isinstance(v, Load):
            orig = self.original_of.get(v)
            if orig is None or v.volatile or v.ordering is not None or not self._memory_unchanged(orig):  # type: ignore[arg-type]
                return False
            return self._recomputable(v.ptr, loop, depth + 1)
        if not isinstance(v, _PURE):
            return False
        return all(self._recomputable(o, loop, depth + 1) for o in v.operands if not isinstance(o, BasicBlock))

    def _affine_parts(self, phi: Phi, loop: Loop) -> tuple[Value, Value, bool] | None:
        """(start, step, is_pointer) when new phi `phi` is start + iv * step."""
        state = self.loop_states[loop]
        if phi.parent is not state.iv.parent or len(phi.incoming) != 2:
            return None
        pre = self.new_block_of(loop.preheader)  # type: ignore[arg-type]
        inside = [(val, blk) for val, blk in phi.incoming if blk is not pre]
        outside = [(val, blk) for val, blk in phi.incoming if blk is pre]
        if len(inside) != 1 or len(outside) != 1:
            return None
        nxt = inside[0][0]
        start = outside[0][0]
        if isinstance(nxt, BinaryOp) and nxt.opcode == "add" and nxt.lhs is phi and isinstance(nxt.rhs, ConstantInt):
            return start, nxt.rhs, False
        if (isinstance(nxt, GetElementPtr) and nxt.ptr is phi and len(nxt.indices) == 1
                and isinstance(nxt.indices[0], ConstantInt)):
            step = nxt.indices[0].value * self.layout.alloc_size_of(nxt.source_type)  # type: ignore[union-attr]
            return start, ConstantInt(I64, step), True
        return None

    def _affine(self, phi: Phi, loop: Loop) -> Value | None:
        parts = self._affine_parts(phi, loop)
        if parts is None:
            return None
        start, step, is_pointer = parts
        b = self.b
        k = self.reverse_counter(loop)
        base = self.lookup(start)
        if is_pointer:
            return b.gep(I8, base, [b.mul(k, step, "aff.off")], self.label(phi) + ".re")
        ty = phi.type
        assert isinstance(ty, IntType)
        kk = k if ty.bits == 64 else (b.trunc(k, ty, "aff.k") if ty.bits < 64 else b.zext(k, ty, "aff.k"))
        return b.add(base, b.mul(kk, ConstantInt(ty, step.value), "aff.off"), self.label(phi) + ".re")  # type: ignore[attr-defined]

    # -- memory facts (see memory_facts) -------------------------------------------------
    @property
    def memory(self) -> MemoryFacts:
        """Write and alias facts of the original, made on first use (after `split` is set)."""
        if self._memory is None:
            self._memory = MemoryFacts(self)
        return self._memory

    @property
    def variance(self) -> LoopVariance:
        """Which loops each value of the original varies in (`loop_variance`)."""
        if self._variance is None:
            self._variance = LoopVariance(self.loops, self.memory.clobbered_in)
        return self._variance

    def cache_loops(self, v: Instruction) -> list[Loop]:
        """The loops of forward value `v` that it varies in, outermost first: the
        loops whose iteration numbers index its cache."""
        loops = self.loops_of_new(v)
        orig = self.original_of.get(v)
        if not isinstance(orig, Instruction) or orig.parent is not self.block_map.get(v.parent):  # type: ignore[arg-type]
            return loops
        varying = self.variance.varying(orig)
        return [L for L in loops if L in varying]

    def _memory_unchanged(self, load: Load) -> bool:
        """No instruction of the original may write the memory `load` reads."""
        return self.memory.load_unchanged(load)

    def never_written(self, target: Value) -> bool:
        """No instruction of the original may write allocation `target`."""
        return self.memory.never_written(target)

    def outlives_caller_writes(self, target: Value) -> bool:
        return self.memory.outlives_caller_writes(target)


def _spelling(v: Value) -> str:
    """`%x`, `@g` or `argument 2` for messages ('?' for other unnamed values)."""
    if isinstance(v, Argument) and not v.name:
        return f"argument {v.index + 1}"
    try:
        return v.ref() if v.name or isinstance(v, Constant) else "?"
    except ValueError:
        return "?"


def null_pointer(v: Value) -> bool:
    """A null/undef/poison pointer, or address arithmetic on one: its shadow is itself
    (a callee writes through it only where the primal would fault too)."""
    if not isinstance(v.type, PointerType):
        return False
    if isinstance(v, Constant):
        return not isinstance(v, GlobalValue) and base_global(v) is None
    return derived_from_null(v)


def derived_from_null(v: Value) -> bool:
    """A pointer computed by address arithmetic from a null/undef/poison constant."""
    from enzc.ad.analysis.memory_facts import underlying_object

    base = underlying_object(v)
    return base is not v and isinstance(base, Constant) and not isinstance(base, GlobalValue) \
        and base_global(base) is None
