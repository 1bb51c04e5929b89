"""Bring a copy of the function to differentiate into the shape the reverse pass needs.

The reverse pass runs each loop backwards with a counter, so every loop needs a
preheader (where its caches are allocated and, in reverse, freed) and exit blocks
entered only from inside the loop (where the iteration count is recorded). Values
defined in a loop and used after it must go through a phi in the exit block (LCSSA),
so that a lookup of a loop value always happens inside that loop. The optimizer's
output mostly has this shape; this pass adds what is missing on a private copy,
leaving the user's function untouched.

It also raises Enzyme's iteration counts: `__enzyme_iter(n, k)` in a copy being
differentiated becomes `__enzyme_iter(n + k, k)`, so a loop bounded by it runs k more
times at each derivative order (a series that loses a term per derivative keeps its
accuracy); the calls left after the AD stage become `n` (`pipeline`).
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.cfg import edge_count
from enzc.ir.dominators import DominatorTree
from enzc.ir.instructions import Alloca, CallBase, Instruction, Invoke, LandingPad, Phi, Store
from enzc.ir.loops import Loop, LoopInfo, reject_irreducible
from enzc.ir.module import BasicBlock, Function
from enzc.ir.transforms import ValueMap, clone_function, redirect_edges, remove_unreachable_blocks, split_edge


def prepare(fn: Function) -> tuple[Function, ValueMap]:
    """A private copy of `fn` with preheaders, dedicated exits and LCSSA phis.

    Returns the copy and the map from `fn`'s values to the copy's (for diagnostics
    that point back at the user's instructions).
    """
    copy, vmap = clone_function(fn, fn.name or "f")
    remove_unreachable_blocks(copy)
    raise_iteration_counts(copy)
    _dedicate_invoke_successors(copy)
    reject_irreducible(copy)
    for loop in list(LoopInfo(copy)):
        if loop.preheader is None:
            outside = [p for p in loop.header.predecessors if not loop.contains(p)]
            split_predecessors(loop.header, outside, f"{loop.header.name or 'loop'}.preheader")
    for loop in list(LoopInfo(copy)):
        for exit_block in loop.exit_blocks:
            preds = exit_block.predecessors
            if any(not loop.contains(p) for p in preds):
                inside = [p for p in preds if loop.contains(p)]
                name = f"{exit_block.name or 'exit'}.loopexit"
                if isinstance(exit_block.first_non_phi, LandingPad):
                    split_landing_pad(exit_block, inside, name)
                else:
                    split_predecessors(exit_block, inside, name)
    form_lcssa(copy, LoopInfo(copy))
    return copy, vmap


ITER = "__enzyme_iter"


def iteration_calls(fn: Function) -> list[CallBase]:
    """Calls of `__enzyme_iter(n, k)` in `fn` (the two integers of one width)."""
    out = []
    for inst in fn.instructions():
        callee = inst.called_function if isinstance(inst, CallBase) else None
        if callee is not None and callee.name == ITER and len(inst.args) == 2:  # type: ignore[union-attr]
            out.append(inst)
    return out  # type: ignore[return-value]


def raise_iteration_counts(fn: Function) -> None:
    """`__enzyme_iter(n, k)` -> `__enzyme_iter(n + k, k)`: one derivative order more."""
    for call in iteration_calls(fn):
        b = IRBuilder()
        b.position_before(call)
        count, step = call.args
        call.set_operand(0, b.add(count, step, "iter.next"))


def _dedicate_invoke_successors(fn: Function) -> None:
    """Give each `invoke` a normal successor of its own: an augmented call that
    replaces it unpacks its result there, where only that edge arrives."""
    for block in list(fn.blocks):
        term = block.terminator
        if isinstance(term, Invoke) and len(term.normal_dest.predecessors) > 1:
            split_edge(block, term.normal_dest, f"{block.name or 'invoke'}.cont")


def split_predecessors(block: BasicBlock, preds: list[BasicBlock], name: str) -> BasicBlock:
    """Route the edges from `preds` to `block` through a new block; returns it.

    Phis of `block` get one entry for the new block: the single incoming value
    from `preds`, or a new phi in the new block merging them.
    """
    fn = block.parent
    assert fn is not None
    mid = new_block(fn, name, after=preds[-1] if preds else None)
    b = IRBuilder(mid)
    for phi in block.phis:
        pairs = [(v, p) for v, p in phi.incoming if p in preds]
        kept = [(v, p) for v, p in phi.incoming if p not in preds]
        values = {id(v) for v, _ in pairs}
        if len(values) == 1:
            merged = pairs[0][0]
        else:
            merged = b.phi(phi.type, pairs, name=(phi.name or "m") + ".merge")
        phi.set_operands([x for pair in kept + [(merged, mid)] for x in pair])
    b.position_at_end(mid)
    b.br(block)
    for p in preds:
        redirect_edges(p, block, mid)
    return mid


def split_landing_pad(block: BasicBlock, preds: list[BasicBlock], name: str) -> None:
    """`split_predecessors` for a landing pad, which only unwind edges may enter:
    `preds` and the other predecessors each unwind to a new pad of their own (a
    copy of the `landingpad`) that branches to `block`, where a phi of the two
    takes the old pad's place (what LLVM's loop simplification does)."""
    pad = block.first_non_phi
    assert isinstance(pad, LandingPad)
    others = [p for p in block.predecessors if p not in preds]
    caught = []
    for group, suffix in ((preds, ""), (others, ".split-lp")):
        mid = split_predecessors(block, group, name + suffix)
        copy = LandingPad(pad.type, pad.cleanup, pad.clauses, (pad.name or "lpad") + suffix)
        copy.insert_before(mid.instructions[len(mid.phis)])
        caught.append((copy, mid))
    b = IRBuilder()
    b.position_before(pad)
    merged = b.phi(pad.type, caught, name=pad.name or "lpad")
    pad.replace_all_uses_with(merged)
    pad.erase()


def form_lcssa(fn: Function, loops: LoopInfo) -> None:
    """Make every use of a loop-defined value outside its loop go through an exit phi.

    Where a single exit block dominates the use, an exit phi carries the value.
    Otherwise (a use after two exits merge) the value goes through a stack slot;
    the slot is ordinary memory to the AD (a shadow slot carries the adjoint) and
    mem2reg removes it after differentiation.
    """
    dt = DominatorTree(fn)
    for loop in sorted(loops, key=lambda lp: -lp.depth):
        exits = loop.exit_blocks
        for block in [b for b in fn.blocks if loop.contains(b)]:
            for inst in list(block.instructions):
                _fix_escaping_uses(inst, loop, exits, dt)


def _use_block(user: Instruction, index: int) -> BasicBlock:
    if isinstance(user, Phi):
        return user.operand(index + 1)  # type: ignore[return-value]
    assert user.parent is not None
    return user.parent


def _fix_escaping_uses(inst: Instruction, loop: Loop, exits: list[BasicBlock], dt: DominatorTree) -> None:
    escaping = [u for u in inst.uses if isinstance(u.user, Instruction) and u.user.parent is not None
                and not loop.contains(_use_block(u.user, u.index))]  # type: ignore[arg-type]
    if not escaping:
        return
    phis: dict[BasicBlock, Phi] = {}
    slot: Alloca | None = None
    for use in escaping:
        user = use.user
        assert isinstance(user, Instruction)
        where = _use_block(user, use.index)
        target = next((x for x in exits if dt.block_dominates(x, where)
                       and all(dt.dominates(inst, p.terminator) for p in x.predecessors)), None)
        if target is not None:
            phi = phis.get(target)
            if phi is None:
                b = IRBuilder()
                b.position_at_start(target)
                phi = b.phi(inst.type, [(inst, p) for p in target.predecessors
                                                 for _ in range(edge_count(p, target))], name=(inst.name or "v") + ".lcssa")
                phis[target] = phi
            user.set_operand(use.index, phi)
            continue
        if slot is None:
            slot = _spill(inst)
        b = IRBuilder()
        if isinstance(user, Phi):
            b.position_before_terminator(where)
        else:
            b.position_before(user)
        reload = b.load(inst.type, slot, name=(inst.name or "v") + ".reload")
        user.set_operand(use.index, reload)


def _spill(inst: Instruction) -> Alloca:
    fn = inst.function
    assert fn is not None and inst.parent is not None
    b = IRBuilder()
    b.position_at_start(fn.entry)
    slot = b.alloca(inst.type, name=(inst.name or "v") + ".slot")
    if isinstance(inst, Phi):
        b.position_after_phis(inst.parent)
    else:
        b.position_after(inst)
    b.insert(Store(inst, slot))
    assert isinstance(slot, Alloca)
    return slot

