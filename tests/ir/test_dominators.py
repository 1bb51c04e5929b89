"""Dominator and post-dominator trees: hand-checked shapes, and random CFGs against
the definitions (a dominates b iff removing a cuts every path from the entry to b)."""

import random

from enzc.ir.builder import IRBuilder
from enzc.ir.cfg import edges, exit_blocks, is_critical_edge, post_order, reachable_blocks, reverse_post_order
from enzc.ir.dominators import DominatorTree, PostDominatorTree
from enzc.ir.instructions import Br, Ret, Switch, Unreachable
from enzc.ir.module import Function, Module
from enzc.ir.types import I1, I32, I64, VOID, FunctionType
from enzc.ir.values import ConstantInt


def cfg(spec: dict[str, list[str]], entry: str = "entry") -> tuple[Function, dict]:
    """A void(i1, i32) function whose blocks branch as `spec` says: [] → ret,
    one target → br, two → conditional br on arg 0, more → switch on arg 1.
    `"!"` as the only target ends the block with `unreachable`."""
    m = Module()
    fn = m.add_function("f", FunctionType(VOID, (I1, I32)))
    fn.blocks = []
    names = [entry] + [k for k in spec if k != entry]
    blocks = {n: fn.append_block(n) for n in names}
    for name, targets in spec.items():
        bb = blocks[name]
        if targets == ["!"]:
            bb.append(Unreachable())
        elif not targets:
            bb.append(Ret())
        elif len(targets) == 1:
            bb.append(Br(blocks[targets[0]]))
        elif len(targets) == 2:
            bb.append(Br(fn.args[0], blocks[targets[0]], blocks[targets[1]]))
        else:
            cases = [(ConstantInt(I32, k), blocks[t]) for k, t in enumerate(targets[1:])]
            bb.append(Switch(fn.args[1], blocks[targets[0]], cases))
    return fn, blocks


def _reach(start, succ, removed=None):
    seen, stack = set(), [start]
    while stack:
        b = stack.pop()
        if b in seen or b is removed:
            continue
        seen.add(b)
        stack.extend(succ(b))
    return seen


def test_diamond_idoms_frontiers_and_post_dominators():
    fn, b = cfg({"entry": ["a", "c"], "a": ["join"], "c": ["join"], "join": []})
    dt = DominatorTree(fn)
    assert dt.idom(b["join"]) is b["entry"] and dt.idom(b["a"]) is b["entry"] and dt.idom(b["entry"]) is None
    assert set(dt.children(b["entry"])) == {b["a"], b["c"], b["join"]}
    assert dt.dominance_frontier(b["a"]) == [b["join"]] and dt.dominance_frontier(b["entry"]) == []
    assert not dt.block_dominates(b["a"], b["join"]) and dt.block_dominates(b["entry"], b["join"])
    assert dt.depth(b["join"]) == 1 and dt.nearest_common_dominator(b["a"], b["c"]) is b["entry"]
    pdt = PostDominatorTree(fn)
    assert pdt.ipdom(b["entry"]) is b["join"] and pdt.ipdom(b["join"]) is None
    assert pdt.post_dominates(b["join"], b["a"]) and not pdt.post_dominates(b["a"], b["entry"])
    assert pdt.frontier(b["a"]) == [b["entry"]]  # a is control dependent on entry's branch


def test_several_exits_and_infinite_loop_post_dominators():
    fn, b = cfg({"entry": ["r1", "x"], "r1": [], "x": ["r2", "spin"], "r2": ["!"], "spin": ["spin2"], "spin2": ["spin"]})
    pdt = PostDominatorTree(fn)
    assert set(exit_blocks(fn)) == {b["r1"], b["r2"]}
    assert pdt.roots[:2] == [b["r1"], b["r2"]] and b["spin2"] in pdt.roots
    assert pdt.ipdom(b["entry"]) is None and pdt.ipdom(b["x"]) is None
    assert pdt.ipdom(b["spin"]) is b["spin2"] and pdt.ipdom(b["spin2"]) is None
    assert pdt.nearest_common_post_dominator(b["r1"], b["r2"]) is None


def test_unreachable_blocks_follow_llvm_conventions():
    fn, b = cfg({"entry": ["exit"], "exit": [], "dead": ["exit"]})
    dt = DominatorTree(fn)
    assert not dt.is_reachable(b["dead"]) and dt.idom(b["dead"]) is None
    assert dt.block_dominates(b["exit"], b["dead"])  # everything dominates dead code
    assert not dt.block_dominates(b["dead"], b["exit"])
    assert reachable_blocks(fn) == {b["entry"], b["exit"]}
    assert [x.name for x in reverse_post_order(fn)] == ["entry", "exit"]


def test_instruction_dominance_and_phi_uses():
    m = Module()
    fn = m.add_function("f", FunctionType(I64, (I64,)))
    fn.blocks = []
    bld = IRBuilder(fn.append_block("entry"))
    x = bld.add(fn.args[0], ConstantInt(I64, 1), "x")
    loop, out = bld.append_block("loop"), bld.append_block("out")
    bld.br(loop)
    bld.position_at_end(loop)
    phi = bld.phi(I64, [(x, fn.entry)], "i")
    nxt = bld.add(phi, x, "next")
    bld.cond_br(bld.icmp("eq", nxt, fn.args[0]), out, loop)
    phi.add_incoming(nxt, loop)
    bld.position_at_end(out)
    bld.ret(nxt)
    dt = DominatorTree(fn)
    assert dt.dominates(x, nxt) and dt.dominates(phi, nxt) and not dt.dominates(nxt, phi)
    assert not dt.dominates(nxt, nxt) and dt.dominates(fn.args[0], x)
    uses = {(u.user, u.index): u for u in nxt.uses}
    assert dt.dominates(nxt, uses[(phi, 2)])  # phi use = end of the incoming block (loop)
    # position cache stays right after inserting before `nxt`
    with bld.goto_before(nxt):
        y = bld.add(phi, phi, "y")
    assert dt.dominates(y, nxt) and not dt.dominates(nxt, y)


def test_invoke_result_dominates_only_along_the_normal_edge():
    m = Module()
    callee = m.add_function("g", FunctionType(I64, ()))
    fn = m.add_function("f", FunctionType(I64, ()))
    fn.blocks = []
    b = IRBuilder(fn.append_block("entry"))
    ok, bad = b.append_block("ok"), b.append_block("bad")
    inv = b.invoke(callee, [], ok, bad, "r")
    b.position_at_end(ok)
    use_ok = b.add(inv, inv, "u")
    b.ret(use_ok)
    b.position_at_end(bad)
    b.ret(ConstantInt(I64, 0))
    dt = DominatorTree(fn)
    assert dt.dominates(inv, use_ok) and not dt.dominates(inv, bad.instructions[0])
    assert dt.edge_dominates(fn.entry, ok, ok)


def test_cfg_helpers():
    fn, b = cfg({"entry": ["a", "join"], "a": ["join"], "join": ["x", "y", "y"], "x": [], "y": []})
    assert is_critical_edge(b["entry"], b["join"]) and not is_critical_edge(b["a"], b["join"])
    assert (b["join"], b["y"]) in edges(fn) and len(edges(fn)) == 5
    order = post_order(fn)
    assert order[-1] is b["entry"] and order.index(b["join"]) < order.index(b["a"])


def _random_cfg(rng: random.Random, n: int) -> Function:
    names = [f"b{i}" for i in range(n)]
    spec = {}
    for i, name in enumerate(names):
        k = rng.choice([0, 1, 1, 2, 2, 3]) if i else rng.choice([1, 2])
        spec[name] = [rng.choice(names[1:]) for _ in range(k)]
    return cfg(spec, entry="b0")[0]


def test_random_cfgs_match_the_definitions():
    rng = random.Random(7)
    for _ in range(150):
        fn = _random_cfg(rng, rng.randint(2, 11))
        dt = DominatorTree(fn)
        live = reachable_blocks(fn)
        for a in live:
            cut = _reach(fn.entry, lambda x: x.successors, removed=a)
            for bb in live:
                assert dt.block_dominates(a, bb) == (bb is a or bb not in cut)
            # dominance frontier by definition
            want = {y for y in live if any(dt.block_dominates(a, p) for p in y.predecessors if p in live)
                    and not dt.strictly_dominates(a, y)}
            assert set(dt.dominance_frontier(a)) == want
        exits = [x for x in fn.blocks if x.terminator.opcode == "ret"]
        if all(_reach(x, lambda y: y.successors) & set(exits) for x in fn.blocks):
            pdt = PostDominatorTree(fn)
            for a in fn.blocks:
                for bb in fn.blocks:
                    escapes = _reach(bb, lambda y: y.successors, removed=a) & set(exits)
                    assert pdt.post_dominates(a, bb) == (bb is a or not escapes)
