"""Caches of values the same in every iteration of the enclosing loop, stored once.

A cache is indexed only by the loops its value varies in (`loop_variance`): in
`for r / for o / for i: s += in[r][i] * w[o][i]` the load `in[r][i]` is cached per
(r, i), yet every iteration of `o` stores it again, the same value into the same
slot (GPT's forward matmul made as many cache stores as loads). LLVM cannot remove
them: the inner loop would have to be unswitched on "first iteration of `o`",
which -O2 does not do. So the forward pass is versioned here, once all caches
exist: the inner loop `i` is cloned without the stores of such caches, and its
preheader enters the copy with the stores only the first time an iteration of `o`
reaches it (a flag reset at `o`'s preheader), the stripped copy every other time.

That is only right when every iteration of `o` that runs `i` stores the same slots,
so a loop is versioned only when:

- the value's innermost loop `i` indexes the cache, its parent `o` does not, and
  the array is allocated outside `o` (not a new one per iteration of `o`);
- `i` is one block (its header is its latch and only exit) entered from a preheader
  that branches only to it, and its exit block is entered from it alone: the store
  runs in every iteration of `i`;
- `i`'s iteration count is exact and computed from values that do not vary in `o`;
- nothing outside `i` uses its values but the phis of its exit block.

Then a later iteration of `o` visits exactly the slots the first one did, and their
values are the same there (that is what the cache's missing `o` index says).
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import Br, Instruction, Phi, Store
from enzc.ir.local_names import fresh_local_name, new_block
from enzc.ir.loops import Loop
from enzc.ir.module import BasicBlock
from enzc.ir.transforms import clone_instruction
from enzc.ir.types import I1
from enzc.ir.values import ConstantInt

from enzc.ad.synth.cache import Cache, CacheManager
from enzc.ad.synth.gradient_utils import GradientUtils


def store_invariant_caches_once(gu: GradientUtils, caches: CacheManager) -> None:
    """Version the inner loops whose cache stores repeat across their parent's iterations."""
    by_loop: dict[BasicBlock, tuple[Loop, list[Cache]]] = {}
    for cache in caches.caches.values():
        outer = _repeating_loop(gu, cache)
        if outer is not None:
            by_loop.setdefault(cache.store.parent, (outer, []))[1].append(cache)  # type: ignore[union-attr]
    for body, (outer, group) in by_loop.items():
        if _versionable(body):
            _version(gu, body, outer, group)
            for cache in group:
                caches.note_stored_once(cache, "%" + gu.label(outer.header))


def _repeating_loop(gu: GradientUtils, cache: Cache) -> Loop | None:
    """The parent loop of the cached value's innermost loop when the cache is indexed
    by the innermost loop but not by the parent (each parent iteration stores again)."""
    store = cache.store
    value = cache.value
    if cache.growing or not cache.index or store is None or store.parent is None:
        return None
    if not isinstance(value, Instruction) or value.parent not in gu.block_map:
        return None  # (a value `sincos` replaced is gone)
    loops = gu.loops_of_new(value)
    if len(loops) < 2 or loops[-1] not in cache.index or loops[-2] in cache.index:
        return None
    inner, outer = loops[-1], loops[-2]
    if outer in cache.allocated_in:
        return None  # a new array per iteration of `outer`: each must be filled
    tc = gu.trip_count(inner)
    if tc is None or not tc.exact or outer.preheader is None:
        return None
    if any(outer in gu.variance.varying(v) for v in tc.operands()):
        return None
    if inner.blocks != [inner.header] or gu.new_block_of(inner.header) is not store.parent:
        return None
    return outer


def _versionable(body: BasicBlock) -> bool:
    """`body` is a one-block loop with a dedicated preheader and exit, and only the
    exit's phis use its values outside it."""
    term = body.terminator
    if not isinstance(term, Br) or not term.is_conditional or term.successors.count(body) != 1:
        return False
    exit_block = next(s for s in term.successors if s is not body)
    preds = [p for p in body.predecessors if p is not body]
    if len(preds) != 1 or exit_block.predecessors != [body]:
        return False
    pre_term = preds[0].terminator
    if not isinstance(pre_term, Br) or pre_term.is_conditional:
        return False
    for inst in body.instructions:
        for use in inst.uses:
            user = use.user
            if not isinstance(user, Instruction) or user.parent is body:
                continue
            if not (isinstance(user, Phi) and user.parent is exit_block):
                return False
    return True


def _version(gu: GradientUtils, body: BasicBlock, outer: Loop, group: list[Cache]) -> None:
    """Clone `body` without the stores of `group`; enter the original only the first
    time an iteration of `outer` reaches it, the copy every other time."""
    fn = body.parent
    assert fn is not None
    pre = next(p for p in body.predecessors if p is not body)
    exit_block = next(s for s in body.terminator.successors if s is not body)  # type: ignore[union-attr]
    dropped = {cache.store for cache in group}
    again = new_block(fn, f"{body.name or 'loop'}.again", after=body)
    vmap: dict = {body: again}
    clones: list[Instruction] = []
    for inst in body.instructions:  # in order: debug records name earlier values only
        if inst in dropped:
            continue
        new = clone_instruction(inst, vmap)
        if inst.name is not None:
            new.name = fresh_local_name(fn, inst.name + ".again")
        vmap[inst] = new
        again.append(new)
        clones.append(new)
    for new in clones:  # phis name the values of the previous iteration
        for k, op in enumerate(new.operands):
            if op in vmap:
                new.set_operand(k, vmap[op])
    for phi in exit_block.phis:
        v = phi.incoming_value_for(body)
        phi.add_incoming(vmap.get(v, v), again)
    b = IRBuilder(fn.entry)
    with b.goto_entry_allocas():
        flag = b.alloca(I1, name=f"{body.name or 'loop'}.cached.flag")
    b.position_before_terminator(gu.new_block_of(outer.preheader))  # type: ignore[arg-type]
    b.store(ConstantInt(I1, 0), flag)
    old = pre.terminator
    assert old is not None
    b.position_before(old)
    cached = b.load(I1, flag, "cached")
    b.store(ConstantInt(I1, 1), flag)
    b.cond_br(cached, again, body)
    old.erase()
