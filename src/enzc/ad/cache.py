"""Caches: forward values the reverse pass needs inside loops and cannot recompute.

A value defined in loops L1 ⊃ ... ⊃ Lk is stored in the forward pass into an array
indexed by the iteration numbers of those loops, and loaded in the reverse pass
with the reverse counters in their place. Arrays are allocated per *chunk*: the
innermost loops whose iteration counts (exact, or an upper bound from an exit
test that runs every iteration) are already known at an outer preheader share
one flat allocation made there (row-major, the outer loop slowest). When the
chunk's outermost loop has no known count, the array sits behind a small header
`{ptr data, i64 capacity}` and is grown geometrically (`realloc`) when an
iteration reaches the capacity. Where a chunk
starts below the outermost loop, its base pointer is itself a forward value of
the outer loops, cached the same way (an array of pointers per outer iteration).
Every allocation is freed in the reverse pass when the reverse of its chunk's
outermost loop is done (on the edge to the reverse of its preheader).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from enzc.ir.builder import IRBuilder, get_or_insert_function, new_block
from enzc.ir.instructions import Instruction, Phi
from enzc.ir.module import Module
from enzc.ir.types import I64, PTR, VOID, FunctionType, StructType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.cache_report import CacheAllocation, describe
from enzc.ad.loops import Loop

if TYPE_CHECKING:
    from enzc.ad.gradient_utils import GradientUtils

HEADER = StructType((PTR, I64))
"""`{ptr data, i64 capacity}` of a growing cache."""
INITIAL_CAPACITY = 16
GROW_HELPER = "__enzc_cache_grow"


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


@dataclass
class CacheStats:
    """What was cached, for `--enzc-print-cache` and tests."""

    values: int = 0
    growing: int = 0
    fixed: int = 0
    allocations: list[CacheAllocation] = field(default_factory=list)
    """Each array with its size formula (`cache_report`)."""


class CacheManager:
    """Creates caches on demand and emits their stores, loads and frees."""

    def __init__(self, gu: GradientUtils) -> None:
        self.gu = gu
        self.caches: dict[Value, Cache] = {}
        self.pending_frees: list[Cache] = []
        self.stats = CacheStats()

    # -- creation ------------------------------------------------------------------------
    def cache_for(self, value: Instruction) -> Cache:
        cache = self.caches.get(value)
        if cache is None:
            cache = self.caches[value] = self._create(value)
            self.pending_frees.append(cache)
            self.stats.values += 1
        return cache

    def chunk_loops(self, loops: list[Loop]) -> list[Loop]:
        """The innermost loops of `loops` that share one flat allocation."""
        gu = self.gu
        s = len(loops) - 1
        while s > 0:
            candidate = loops[s - 1]
            pre = candidate.preheader
            ok = pre is not None
            for inner in loops[s:]:
                tc = gu.trip_count(inner)
                if not ok or tc is None or not all(gu.available_at(o, pre) for o in tc.operands()):
                    ok = False
                    break
            if not ok:
                break
            s -= 1
        return loops[s:]

    def _create(self, value: Instruction) -> Cache:
        gu = self.gu
        loops = self.chunk_loops(gu.loops_of_new(value))
        head = loops[0]
        pre = head.preheader
        assert pre is not None, "prepare() gives every loop a preheader"
        b = IRBuilder()
        b.position_before_terminator(gu.new_block_of(pre))
        strides = [gu.trip_count(L).emit(b, gu.new_value) for L in loops[1:]]  # type: ignore[union-attr]
        elem = ConstantInt(I64, gu.layout.alloc_size_of(value.type))
        row = elem
        for s in strides:
            row = b.mul(row, s, "cache.row")
        head_tc = gu.trip_count(head)
        name = gu.label(value) + ".cache"
        if head_tc is not None:
            count = head_tc.emit(b, gu.new_value)
            base = b.call(_malloc(gu.module), [b.mul(count, row, "cache.bytes")], name)
            self.stats.fixed += 1
            cache = Cache(value, loops, base, False, strides)
        else:
            cap = ConstantInt(I64, INITIAL_CAPACITY)
            hdr = b.call(_malloc(gu.module), [ConstantInt(I64, 16)], name + ".hdr")
            data = b.call(_malloc(gu.module), [b.mul(cap, row, "cache.bytes")], name + ".data")
            b.store(data, hdr)
            b.store(cap, b.gep(HEADER, hdr, [0, 1], "cache.capp"))
            state = gu.loop_state(head)
            with b.goto_after(state.setup_tail):
                grow = b.call(_grow_helper(gu.module), [hdr, state.iv, row])
            state.setup_tail = grow  # type: ignore[assignment]
            self.stats.growing += 1
            cache = Cache(value, loops, hdr, True, strides)
        self._emit_store(cache)
        self.stats.allocations.append(describe(gu, value, loops, cache.growing))
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
        b.store(value, slot)

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
        return b.load(value.type, slot, gu.label(value) + ".cached")

    def emit_frees(self) -> None:
        """Free every cache on the edge leaving the reverse of its chunk's outer loop."""
        gu = self.gu
        while self.pending_frees:
            cache = self.pending_frees.pop()
            head = cache.loops[0]
            anchor = gu.free_anchor(head)
            saved = gu.enter_context(anchor, head.preheader)
            b = gu.b
            base = gu.lookup(cache.base)
            free = _free(gu.module)
            if cache.growing:
                b.call(free, [b.load(PTR, base, "cache.data")])
            b.call(free, [base])
            gu.leave_context(saved)


def _linear(b: IRBuilder, ivs: list[Value], strides: list[Value]) -> Value:
    index = ivs[0]
    for iv, stride in zip(ivs[1:], strides):
        index = b.add(b.mul(index, stride, "cache.i"), iv, "cache.i")
    return index


def _malloc(module: Module):
    return get_or_insert_function(module, "malloc", FunctionType(PTR, (I64,)))


def _free(module: Module):
    return get_or_insert_function(module, "free", FunctionType(VOID, (PTR,)))


def _grow_helper(module: Module):
    """`void __enzc_cache_grow(ptr hdr, i64 iteration, i64 row_bytes)`, defined once.

    Doubles the capacity (at least to iteration + 1) when `iteration` reaches it.
    """
    fn = module.get_function(GROW_HELPER)
    if fn is not None:
        return fn
    fn = module.add_function(GROW_HELPER, FunctionType(VOID, (PTR, I64, I64)), unique=False)
    fn.linkage.words = ["internal"]
    fn.fn_attrs = ("alwaysinline", "nounwind")
    hdr, it, row = fn.args
    hdr.name, it.name, row.name = "hdr", "iteration", "row"
    fn.blocks = []
    entry = new_block(fn, "entry")
    grow = new_block(fn, "grow")
    done = new_block(fn, "done")
    b = IRBuilder(entry)
    capp = b.gep(HEADER, hdr, [0, 1], "capp")
    cap = b.load(I64, capp, "cap")
    b.cond_br(b.icmp("uge", it, cap, "full"), grow, done)
    b.position_at_end(grow)
    doubled = b.shl(cap, ConstantInt(I64, 1), "doubled")
    needed = b.add(it, ConstantInt(I64, 1), "needed")
    newcap = b.select(b.icmp("ugt", doubled, needed, "big"), doubled, needed, "newcap")
    data = b.load(PTR, hdr, "data")
    realloc = get_or_insert_function(module, "realloc", FunctionType(PTR, (PTR, I64)))
    moved = b.call(realloc, [data, b.mul(newcap, row, "bytes")], "moved")
    b.store(moved, hdr)
    b.store(newcap, capp)
    b.br(done)
    b.position_at_end(done)
    b.ret_void()
    return fn
