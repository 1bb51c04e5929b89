"""Caches: forward values the reverse pass needs inside loops and cannot recompute.

A value defined in loops L1 ⊃ ... ⊃ Lk is stored in the forward pass into an array
indexed by the iteration numbers of those loops it varies in (`loop_variance`),
and loaded in the reverse pass with the reverse counters in their place. Arrays
are allocated per *chunk*: the innermost of those loops whose iteration counts
(exact, or an upper bound from an exit test that runs every iteration) are
already known at an outer preheader share one flat array allocated there
(row-major, the outer loop slowest). A count that depends on a loop the value
does not vary in is replaced by its largest value over that loop
(`tripcount_largest`), and the array is allocated outside it.

Where the arrays live, so that a gradient call makes few allocations:

- *block*: the fixed-size arrays allocated at one preheader outside every loop
  (once per call) share one block, each at an offset aligned for its type. At
  `emit_frees` a block whose size is a compile-time constant becomes an entry
  `alloca` while the derivative's stack blocks stay within `STACK_BUDGET` bytes;
  any other block comes from the per-thread tape stack (`tape_stack`), given back
  on the reverse edge leaving its loop. The stack outlives the gradient call, so
  the next call finds its memory mapped: with `malloc`/`free` a large tape went
  back to the system at the end of every call (glibc trims the heap top) and each
  call paid a page fault per 4 KiB of tape (GPT: a quarter of the gradient's time
  at the smallest size).
- *arena*: the fixed-size arrays of a chunk below an outer loop (an inner count
  that depends on the outer index: a triangular loop) are allocated once per
  outer iteration, all those of one preheader together, from a bump arena of the
  outermost loop nest (`cache_runtime`): a few heap blocks per call instead of a
  `malloc` per iteration. Their base pointers are forward values of the outer
  loops, cached like any other; the arena is freed when the reverse of the loop
  nest is done.
- *growing*: when the chunk's outermost loop has no count, the array sits behind a
  header `{ptr data, i64 capacity}` (an entry `alloca` when allocated once per
  call, else a `malloc`) and is grown geometrically (`realloc`) when an iteration
  reaches the capacity; freed like a block.

With `--enzc-tape-stats` every allocation also adds its bytes to the derivative's
per-call counter (`tape_stats`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import Alloca, Call, Instruction, Load, Phi, Store
from enzc.ir.libc import declare
from enzc.ir.loops import Loop
from enzc.ir.module import BasicBlock, Function
from enzc.ir.types import I8, I64, PTR, ArrayType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.tripcount import TripCount
from enzc.ad.analysis.tripcount_largest import LargestCount, largest_count
from enzc.ad.synth.cache_runtime import ARENA, HEADER, arena_alloc, arena_free, arena_init, grow_helper
from enzc.ad.synth.cache_report import CacheAllocation, describe
from enzc.ad.synth.alias_scopes import DerivativeScopes
from enzc.ad.synth.gradient_utils import GradientUtils
from enzc.ad.synth.tape_stack import BLOCK_ALIGN, tape_alloc, tape_free
from enzc.ad.synth.tape_stats import TapeCounter

Count = TripCount | LargestCount
"""How an array's inner dimension is sized: a loop's count, or its largest over outer iterations."""

INITIAL_CAPACITY = 16
STACK_BUDGET = 4096
"""Bytes of constant-size cache blocks a derivative may keep on its stack."""


@dataclass(eq=False)
class Cache:
    """One cached value: where its array lives and how to index it."""

    value: Value
    """The forward (new-function) value cached."""
    loops: list[Loop]
    """Loops of the chunk, outermost first; the value's innermost loop is the last."""
    base: Value
    """Forward value at the chunk's preheader: the array, or its header when growing."""
    growing: bool
    strides: list[Value] = field(default_factory=list)
    """Iteration counts (or bounds) of loops[1:], computed at the chunk's preheader."""
    row: Value | None = None
    """Bytes of one iteration of loops[0] (growing caches: for the byte count)."""
    heap_header: bool = False
    """A growing cache whose header is malloc'd (allocated per outer iteration)."""
    store: Store | None = None
    """The forward store into the cache (`store_once` may version its loop)."""
    index: list[Loop] = field(default_factory=list)
    """Every loop whose iteration number indexes the cache (`loops` is the innermost of them)."""
    allocated_in: list[Loop] = field(default_factory=list)
    """The loops around the array's allocation (a new array per iteration of the last)."""
    report: int = -1
    """Index of the cache's entry in `CacheStats.allocations`."""


@dataclass(eq=False)
class _Block:
    """The fixed-size arrays allocated together at one preheader."""

    head: Loop
    """The loop at whose preheader the block is allocated (freed when its reverse is left)."""
    alloc: Call
    """`__enzc_tape_alloc(total)` or `__enzc_arena_alloc(arena, total)`; its last argument is patched."""
    total: Value
    """Bytes of all arrays so far (i64, computed before `alloc`)."""
    last: Instruction
    """Where the next array's base pointer goes (after the previous one)."""
    in_arena: bool
    bases: list[Instruction] = field(default_factory=list)
    """The base pointers of the arrays after the first (GEPs of `alloc`)."""
    allocations: list[int] = field(default_factory=list)
    """Indices in `CacheStats.allocations` of this block's arrays."""


@dataclass
class CacheStats:
    """What was cached, for `--enzc-print-cache` and tests."""

    values: int = 0
    growing: int = 0
    fixed: int = 0
    allocations: list[CacheAllocation] = field(default_factory=list)
    """Each array with its size formula and placement (`cache_report`)."""


class CacheManager:
    """Creates caches on demand and emits their stores, loads and frees."""

    def __init__(self, gu: GradientUtils) -> None:
        self.gu = gu
        self.caches: dict[Value, Cache] = {}
        self.stats = CacheStats()
        self.blocks: dict[BasicBlock, _Block] = {}
        self.arenas: dict[Loop, Alloca] = {}
        self.growing: list[Cache] = []
        self._counter: TapeCounter | None = None
        self.scope = DerivativeScopes(gu.module, gu.new.name or "")
        """The derivative's alias scopes, its cache arrays among them (`alias_scopes.py`)."""

    @property
    def counting(self) -> bool:
        """`--enzc-tape-stats`: count the bytes allocated."""
        return self.gu.derivatives is not None and self.gu.derivatives.tape_stats

    def counter(self) -> TapeCounter:
        if self._counter is None:
            self._counter = TapeCounter(self.gu.module, self.gu.new, self.gu.new.name or "?")
        return self._counter

    # -- creation ------------------------------------------------------------------------
    def cache_for(self, value: Instruction) -> Cache:
        cache = self.caches.get(value)
        if cache is None:
            cache = self.caches[value] = self._create(value)
            self.stats.values += 1
        return cache

    def chunk_loops(self, loops: list[Loop], enclosing: list[Loop], invariant: frozenset[Loop] = frozenset()
                    ) -> tuple[list[Loop], list[Count | None], Loop]:
        """The innermost loops of `loops` (the loops indexing a cache) that share one
        flat allocation; their counts (or largest counts over loops of `invariant`,
        the value being the same in all their iterations), None for a first loop
        without one; and the loop at whose preheader the array is allocated: the
        first one, or the outermost loop of `invariant` enclosing it (`enclosing`:
        all the value's loops) where every count is known (GPT's attention: keys
        read in `for t / for u <= t` are cached once outside `t`)."""
        s = len(loops) - 1
        while s > 0 and self._chunk_counts(loops[s - 1], loops[s:], invariant) is not None:
            s -= 1
        chunk = loops[s:]
        inner = self._chunk_counts(chunk[0], chunk[1:], invariant)
        assert inner is not None, "inner counts computable at an outer preheader are computable inside it"
        counts: list[Count | None] = [self.gu.trip_count(chunk[0]), *inner]
        place = chunk[0]
        if counts[0] is not None:
            pos = enclosing.index(place)
            while pos > 0 and enclosing[pos - 1] in invariant:
                hoisted = self._chunk_counts(enclosing[pos - 1], chunk, invariant)
                if hoisted is None:
                    break
                pos -= 1
                counts = list(hoisted)
            place = enclosing[pos]
        return chunk, counts, place

    def _chunk_counts(self, head: Loop, inner: list[Loop], invariant: frozenset[Loop]) -> list[Count] | None:
        """The counts of the `inner` loops at `head`'s preheader; a count that depends
        on a loop of `invariant` (the value is the same in all its iterations) is
        its largest over that loop's iterations."""
        gu = self.gu
        pre = head.preheader
        if pre is None and inner:
            return None
        counts: list[Count] = []
        for L in inner:
            tc = gu.trip_count(L)
            if tc is None:
                return None
            if all(gu.available_at(o, pre) for o in tc.operands()):
                counts.append(tc)
                continue
            largest = largest_count(L, gu.loops, gu.trip_count, lambda v: gu.available_at(v, pre), invariant)
            if largest is None:
                return None
            counts.append(largest)
        return counts

    def _create(self, value: Instruction) -> Cache:
        gu = self.gu
        all_loops = gu.loops_of_new(value)
        index = gu.cache_loops(value)
        invariant = [L for L in all_loops if L not in index]
        if not index:
            return self._create_slot(value, invariant)
        loops, counts, place = self.chunk_loops(index, all_loops, frozenset(invariant))
        enclosing = all_loops[: all_loops.index(place)]  # every loop the allocation's preheader is in
        assert place.preheader is not None, "prepare() gives every loop a preheader"
        pb = gu.new_block_of(place.preheader)
        block = self.blocks.get(pb)
        b = IRBuilder()
        if block is not None:
            b.position_before(block.alloc)
        else:
            b.position_before_terminator(pb)
        strides = [count.emit(b, gu.new_value) for count in counts[1:]]  # type: ignore[union-attr]
        row: Value = ConstantInt(I64, gu.layout.alloc_size_of(value.type))
        for s in strides:
            row = _mul(b, row, s, "cache.row")
        head_count = counts[0]
        name = gu.label(value) + ".cache"
        if head_count is None:
            cache = self._create_growing(b, value, loops, strides, row, bool(enclosing), name)
            placement = ("grows by doubling (realloc) from 16 entries, allocated "
                         + (f"per iteration of loop %{gu.label(enclosing[-1].header)}" if enclosing else "once per call"))
        else:
            nbytes = _mul(b, head_count.emit(b, gu.new_value), row, "cache.bytes")
            base = self._place(b, pb, place, nbytes, gu.layout.abi_align(value.type), enclosing, name)
            self.stats.fixed += 1
            cache = Cache(value, loops, base, False, strides, index=index, allocated_in=enclosing)
            placement = ""  # decided at emit_frees
            self.blocks[pb].allocations.append(len(self.stats.allocations))
        self._emit_store(cache)
        largest = {L: c for L, c in zip(loops, counts) if isinstance(c, LargestCount)}
        cache.report = len(self.stats.allocations)
        self.stats.allocations.append(describe(gu, value, loops, cache.growing, placement, invariant, largest))
        return cache

    def _create_slot(self, value: Instruction, invariant: list[Loop]) -> Cache:
        """A value the same in every iteration of all its loops: one entry `alloca`,
        stored at each execution (the same value), read by the reverse pass."""
        gu = self.gu
        b = IRBuilder(gu.new.entry)
        with b.goto_entry_allocas():
            slot = b.alloca(value.type, name=gu.label(value) + ".cache")
        cache = Cache(value, [], slot, False)
        self._emit_store(cache)
        allocation = describe(gu, value, [], False, "", invariant)
        self.stats.allocations.append(allocation.placed("once per call, on the stack", "slot", -1, None))
        return cache

    def _place(self, b: IRBuilder, pb: BasicBlock, head: Loop, nbytes: Value, align: int,
               enclosing: list[Loop], name: str) -> Value:
        """Base pointer of a new fixed-size array in the block of preheader `pb`."""
        block = self.blocks.get(pb)
        if block is None:
            if enclosing:
                arena = self._arena(enclosing[0])
                alloc = b.call(arena_alloc(self.gu.module), [arena, nbytes], name)
            else:
                alloc = b.call(tape_alloc(self.gu.module), [nbytes], name)
            self.blocks[pb] = _Block(head, alloc, nbytes, alloc, bool(enclosing))  # type: ignore[arg-type]
            return alloc
        offset = _align_up(b, block.total, align)
        block.total = _add(b, offset, nbytes, "cache.total")
        block.alloc.set_operand(block.alloc.num_args - 1, block.total)
        with b.goto_after(block.last):
            base = b.gep(I8, block.alloc, [offset], name)
        block.last = base
        block.bases.append(base)
        return base

    def _arena(self, top: Loop) -> Alloca:
        """The arena of the loop nest `top`, emptied at its preheader."""
        arena = self.arenas.get(top)
        if arena is None:
            gu = self.gu
            b = IRBuilder(gu.new.entry)
            with b.goto_entry_allocas():
                arena = b.alloca(ARENA, name="cache.arena", align=8)  # type: ignore[assignment]
            b.position_before_terminator(gu.new_block_of(top.preheader))  # type: ignore[arg-type]
            arena_init(b, arena)
            self.arenas[top] = arena  # type: ignore[assignment]
        return arena  # type: ignore[return-value]

    def _create_growing(self, b: IRBuilder, value: Instruction, loops: list[Loop], strides: list[Value],
                        row: Value, per_iteration: bool, name: str) -> Cache:
        gu = self.gu
        cap = ConstantInt(I64, INITIAL_CAPACITY)
        if per_iteration:
            hdr = b.call(declare(gu.module, "malloc"), [ConstantInt(I64, 16)], name + ".hdr")
        else:
            e = IRBuilder(gu.new.entry)
            with e.goto_entry_allocas():
                hdr = e.alloca(HEADER, name=name + ".hdr", align=8)
        data = b.call(declare(gu.module, "malloc"), [_mul(b, cap, row, "cache.bytes")], name + ".data")
        b.store(data, hdr)
        b.store(cap, b.gep(HEADER, hdr, [0, 1], "cache.capp"))
        state = gu.loop_state(loops[0])
        with b.goto_after(state.setup_tail):
            grow = b.call(grow_helper(gu.module), [hdr, state.iv, row])
        state.setup_tail = grow  # type: ignore[assignment]
        self.stats.growing += 1
        cache = Cache(value, loops, hdr, True, strides, row, per_iteration)
        self.growing.append(cache)
        return cache

    def _emit_store(self, cache: Cache) -> None:
        gu = self.gu
        value = cache.value
        assert isinstance(value, Instruction) and value.parent is not None
        b = IRBuilder()
        if isinstance(value, Phi):
            header_state = gu.loop_state_of_header(value.parent)
            if header_state is not None:
                b.position_after(header_state.setup_tail)
            else:
                b.position_after_phis(value.parent)
        else:
            b.position_after(value)
        data = b.load(PTR, cache.base, "cache.data") if cache.growing else cache.base
        ivs = [gu.loop_state(L).iv for L in cache.loops]
        index = _linear(b, ivs, cache.strides)
        slot = b.gep(value.type, data, [index], "cache.slot")
        cache.store = b.store(value, slot, align=_entry_align(gu, value))  # type: ignore[assignment]
        self.scope.tag_slot(cache.store)  # type: ignore[arg-type]

    def note_stored_once(self, cache: Cache, outer: str) -> None:
        """`--enzc-print-cache`: the cache is stored in one iteration of loop `outer` only."""
        allocs = self.stats.allocations
        allocs[cache.report] = allocs[cache.report].stored_once_in(outer)

    # -- use -------------------------------------------------------------------------------
    def load(self, value: Instruction) -> Value:
        """The cached value of the current reverse iteration, at the builder's position."""
        cache = self.cache_for(value)
        gu = self.gu
        b = gu.b
        base = gu.lookup(cache.base)
        data = b.load(PTR, base, "cache.data") if cache.growing else base
        strides = [gu.lookup(s) for s in cache.strides]
        ivs = [gu.reverse_counter(L) for L in cache.loops]
        index = _linear(b, ivs, strides)
        slot = b.gep(value.type, data, [index], "cache.slot")
        cached = b.load(value.type, slot, gu.label(value) + ".cached", align=_entry_align(gu, value))
        self.scope.tag_slot(cached)  # type: ignore[arg-type]
        return cached

    # -- end of the reverse pass ---------------------------------------------------------
    def emit_frees(self) -> None:
        """Free the growing caches, the arenas and the tape-stack blocks on the edges
        leaving the reverse of their loops; put small constant-size blocks on the stack."""
        gu = self.gu
        done = 0
        while done < len(self.growing):  # (a lookup may add caches)
            self._free_growing(self.growing[done])
            done += 1
        for top, arena in self.arenas.items():
            saved = gu.enter_context(gu.free_anchor(top), top.preheader)
            b = gu.b
            if self.counting:
                self.counter().add(b, b.load(I64, b.gep(ARENA, arena, [0, 3], "arena.bytesp"), "arena.bytes"))
            b.call(arena_free(gu.module), [arena])
            gu.leave_context(saved)
        stack = 0
        for block in self.blocks.values():
            if block.in_arena:
                outer = block.head.enclosing()[-2]
                where = (f"per iteration of loop %{gu.label(outer.header)}, as one piece{_of_bytes(block.total)} "
                         "of the loop nest's arena")
                self._set_placement(block, where, "arena")
                continue
            size = block.total
            on_stack = isinstance(size, ConstantInt) and stack + size.value <= STACK_BUDGET
            if self.counting:
                counted = IRBuilder()
                counted.position_after(block.alloc)
                self.counter().add(counted, size)
            if on_stack:
                stack += size.value  # type: ignore[union-attr]
                self._to_stack(block)
                self._set_placement(block, f"once per call, on the stack (entry alloca of {size.value} bytes)",  # type: ignore[union-attr]
                                    "stack")
            else:
                saved = gu.enter_context(gu.free_anchor(block.head), block.head.preheader)
                gu.b.call(tape_free(gu.module), [gu.lookup(block.alloc)])
                gu.leave_context(saved)
                self._set_placement(block, f"once per call, in one block of the tape stack{_of_bytes(size)}", "tape")

    def finish(self, exit_block: BasicBlock) -> None:
        """`--enzc-tape-stats`: record the call's count before the derivative returns."""
        if self.counting:
            self.counter().finish(exit_block)

    def _free_growing(self, cache: Cache) -> None:
        gu = self.gu
        head = cache.loops[0]
        saved = gu.enter_context(gu.free_anchor(head), head.preheader)
        b = gu.b
        hdr = gu.lookup(cache.base)
        if self.counting:
            cap = b.load(I64, b.gep(HEADER, hdr, [0, 1], "cache.capp"), "cache.cap")
            nbytes = b.mul(cap, gu.lookup(cache.row), "cache.bytes")  # type: ignore[arg-type]
            if cache.heap_header:
                nbytes = b.add(nbytes, ConstantInt(I64, 16), "cache.bytes")
            self.counter().add(b, nbytes)
        b.call(declare(gu.module, "free"), [b.load(PTR, hdr, "cache.data")])
        if cache.heap_header:
            b.call(declare(gu.module, "free"), [hdr])
        gu.leave_context(saved)

    def _to_stack(self, block: _Block) -> None:
        """Replace the block's `__enzc_tape_alloc` by an entry `alloca` of its constant size.

        The reverse pass then addresses the arrays from the alloca itself (a new
        GEP of it at each use, spilled pointers included): in split mode that makes
        the alloca one used on both sides, whose memory lives in the tape, where
        a pointer carried over would point into the finished forward call's frame."""
        gu = self.gu
        b = IRBuilder(gu.new.entry)
        with b.goto_entry_allocas():
            slot = b.alloca(ArrayType(block.total.value, I8), name=block.alloc.name or "cache.block",  # type: ignore[attr-defined]
                            align=BLOCK_ALIGN)
        offsets: dict[Instruction, Value] = {block.alloc: ConstantInt(I64, 0)}
        offsets.update((base, base.operand(1)) for base in block.bases)
        for old, offset in offsets.items():
            spill = gu.spills.pop(old, None)
            if spill is not None:
                for use in list(spill.uses):
                    user = use.user
                    assert isinstance(user, (Load, Store)), "a spill slot is only stored and loaded"
                    if isinstance(user, Load):
                        user.replace_all_uses_with(_address(user, slot, offset))
                    user.erase()
                spill.erase()
            for use in list(old.uses):
                user = use.user
                if isinstance(user, Instruction) and user.parent not in gu.block_map:
                    user.set_operand(use.index, _address(user, slot, offset, use.index))
        block.alloc.replace_all_uses_with(slot)
        block.alloc.erase()

    def _set_placement(self, block: _Block, where: str, kind: str) -> None:
        allocs = self.stats.allocations
        shared = len(block.allocations)
        note = f" (shared with {shared - 1} other cache{'s' if shared > 2 else ''})" if shared > 1 else ""
        size = block.total.value if isinstance(block.total, ConstantInt) else None
        number = list(self.blocks.values()).index(block)
        for i in block.allocations:
            allocs[i] = allocs[i].placed("allocated " + where + note, kind, number, size)


def _address(user: Instruction, slot: Value, offset: Value, operand: int | None = None) -> Value:
    """`slot + offset` for `user` (its operand `operand`): computed right before it,
    or before the incoming block's terminator for a phi; the slot itself at 0."""
    if isinstance(offset, ConstantInt) and offset.value == 0:
        return slot
    b = IRBuilder()
    if isinstance(user, Phi) and operand is not None:
        b.position_before_terminator(user.operand(operand + 1))  # type: ignore[arg-type]
    else:
        b.position_before(user)
    return b.gep(I8, slot, [offset], "cache.addr")


def _linear(b: IRBuilder, ivs: list[Value], strides: list[Value]) -> Value:
    if not ivs:
        return ConstantInt(I64, 0)
    index = ivs[0]
    for iv, stride in zip(ivs[1:], strides):
        index = b.add(b.mul(index, stride, "cache.i"), iv, "cache.i")
    return index


def _mul(b: IRBuilder, x: Value, y: Value, name: str) -> Value:
    if isinstance(x, ConstantInt) and isinstance(y, ConstantInt):
        return ConstantInt(I64, x.value * y.value)
    if isinstance(x, ConstantInt) and x.value == 1:
        return y
    return b.mul(x, y, name)


def _add(b: IRBuilder, x: Value, y: Value, name: str) -> Value:
    if isinstance(x, ConstantInt) and isinstance(y, ConstantInt):
        return ConstantInt(I64, x.value + y.value)
    return b.add(x, y, name)


def _entry_align(gu: GradientUtils, value: Value) -> int:
    """The alignment a cache entry of `value` can count on: its type's, up to the
    blocks' 16 bytes (an AVX-512 vector asks for 64)."""
    return min(gu.layout.abi_align(value.type), BLOCK_ALIGN)


def _align_up(b: IRBuilder, x: Value, align: int) -> Value:
    if isinstance(x, ConstantInt):
        return ConstantInt(I64, -(-x.value // align) * align)
    if align == 1:
        return x
    return b.and_(b.add(x, ConstantInt(I64, align - 1), "cache.off"), ConstantInt(I64, -align), "cache.off")


def _of_bytes(size: Value) -> str:
    return f" of {size.value} bytes" if isinstance(size, ConstantInt) else ""
