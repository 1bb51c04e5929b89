"""Dominator and post-dominator trees (Cooper–Harvey–Kennedy, iterative over RPO).

Trees are snapshots: build a new one after changing the CFG. Queries are O(1)
through depth-first in/out numbers of the tree; instruction order inside a block
is cached per block and revalidated on every query, so inserting instructions
does not invalidate a tree (adding or removing blocks and edges does).

Conventions follow LLVM, so code written against LLVM's API reads the same:
a block unreachable from the entry is dominated by everything and dominates
nothing; an instruction does not dominate itself; a phi uses its operand at the
end of the incoming block; an invoke's result exists only along its normal edge.
"""

from __future__ import annotations

from typing import Callable, Generic, Hashable, Iterable, TypeVar

from enzc.ir.cfg import _post_order_from, exit_blocks, successors
from enzc.ir.instructions import CallBr, Instruction, Invoke, Phi
from enzc.ir.module import BasicBlock, Function
from enzc.ir.values import Use, Value

N = TypeVar("N", bound=Hashable)


def compute_idoms(rpo: list[N], preds: Callable[[N], Iterable[N]]) -> dict[N, N | None]:
    """Immediate dominators of the nodes of `rpo` (a reverse post-order from rpo[0]).

    Cooper, Harvey & Kennedy, "A Simple, Fast Dominance Algorithm": iterate
    `idom(b) = intersect(processed preds)` to a fixed point; predecessors outside
    `rpo` (unreachable) are ignored. The root maps to None.
    """
    index = {b: i for i, b in enumerate(rpo)}
    pred_idx = [[index[p] for p in preds(b) if p in index] for b in rpo]
    idom: list[int] = [-1] * len(rpo)
    if rpo:
        idom[0] = 0
    changed = True
    while changed:
        changed = False
        for i in range(1, len(rpo)):
            new = -1
            for p in pred_idx[i]:
                if idom[p] == -1:
                    continue
                if new == -1:
                    new = p
                    continue
                a, b = p, new
                while a != b:
                    while a > b:
                        a = idom[a]
                    while b > a:
                        b = idom[b]
                new = a
            if idom[i] != new:
                idom[i] = new
                changed = True
    out: dict[N, N | None] = {rpo[i]: (rpo[idom[i]] if i else None) for i in range(len(rpo))}
    return out


class _Tree(Generic[N]):
    """A rooted tree given by parent links, with DFS numbers for ancestor tests."""

    def __init__(self, root: N, parent: dict[N, N | None]) -> None:
        self.root = root
        self.parent = parent
        self.children: dict[N, list[N]] = {n: [] for n in parent}
        for n, p in parent.items():
            if p is not None:
                self.children[p].append(n)
        self.dfs_in: dict[N, int] = {}
        self.dfs_out: dict[N, int] = {}
        self.depth: dict[N, int] = {root: 0}
        self.preorder: list[N] = []
        counter = 0
        stack: list[tuple[N, int]] = [(root, 0)]
        while stack:
            node, k = stack.pop()
            if k == 0:
                self.dfs_in[node] = counter
                counter += 1
                self.preorder.append(node)
            kids = self.children[node]
            if k < len(kids):
                stack.append((node, k + 1))
                child = kids[k]
                self.depth[child] = self.depth[node] + 1
                stack.append((child, 0))
            else:
                self.dfs_out[node] = counter
                counter += 1

    def is_ancestor(self, a: N, b: N) -> bool:
        """a == b or a is above b."""
        return self.dfs_in[a] <= self.dfs_in[b] and self.dfs_out[b] <= self.dfs_out[a]

    def nearest_common_ancestor(self, a: N, b: N) -> N:
        while not self.is_ancestor(a, b):
            a = self.parent[a]  # type: ignore[assignment]
        return a

    def frontier(self, preds: Callable[[N], Iterable[N]]) -> dict[N, list[N]]:
        """Dominance frontiers (CHK): where a node's dominance ends."""
        df: dict[N, dict[N, None]] = {n: {} for n in self.parent}
        for b in self.parent:
            ps = [p for p in preds(b) if p in self.parent]
            if len(ps) < 2:
                continue
            for p in ps:
                runner: N | None = p
                while runner is not None and runner != self.parent[b]:
                    df[runner][b] = None
                    runner = self.parent[runner]
        return {n: list(s) for n, s in df.items()}


class _BlockOrder:
    """Position of instructions in their blocks, cached and checked on each lookup."""

    def __init__(self) -> None:
        self._pos: dict[Instruction, int] = {}

    def index(self, inst: Instruction) -> int:
        block = inst.parent
        assert block is not None, "instruction is not in a block"
        i = self._pos.get(inst)
        insts = block.instructions
        if i is None or i >= len(insts) or insts[i] is not inst:
            for k, x in enumerate(insts):
                self._pos[x] = k
            i = self._pos[inst]
        return i

    def comes_before(self, a: Instruction, b: Instruction) -> bool:
        return self.index(a) < self.index(b)


class DominatorTree:
    """Dominance over the blocks reachable from the function's entry."""

    def __init__(self, fn: Function) -> None:
        self.function = fn
        self.rpo: list[BasicBlock] = _post_order_from([fn.entry], successors)[::-1]
        """Reachable blocks in reverse post-order."""
        self._tree: _Tree[BasicBlock] = _Tree(fn.entry, compute_idoms(self.rpo, lambda b: b.predecessors))
        self._order = _BlockOrder()
        self._frontier: dict[BasicBlock, list[BasicBlock]] | None = None

    # -- tree ------------------------------------------------------------------------
    def is_reachable(self, block: BasicBlock) -> bool:
        return block in self._tree.parent

    def idom(self, block: BasicBlock) -> BasicBlock | None:
        """Immediate dominator; None for the entry and unreachable blocks."""
        return self._tree.parent.get(block)

    def children(self, block: BasicBlock) -> list[BasicBlock]:
        """Blocks whose immediate dominator is `block`."""
        return self._tree.children.get(block, [])

    def depth(self, block: BasicBlock) -> int:
        """Distance from the entry in the tree (entry: 0)."""
        return self._tree.depth[block]

    def preorder(self) -> list[BasicBlock]:
        """Reachable blocks, each before the blocks it dominates."""
        return list(self._tree.preorder)

    def nearest_common_dominator(self, a: BasicBlock, b: BasicBlock) -> BasicBlock:
        return self._tree.nearest_common_ancestor(a, b)

    def dominance_frontier(self, block: BasicBlock) -> list[BasicBlock]:
        """Blocks where `block`'s dominance ends (where phis for its defs go)."""
        if self._frontier is None:
            self._frontier = self._tree.frontier(lambda b: b.predecessors)
        return self._frontier.get(block, [])

    # -- queries ---------------------------------------------------------------------
    def block_dominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        """Every path from the entry to `b` passes through `a` (a block dominates itself)."""
        if b not in self._tree.parent:
            return True
        if a not in self._tree.parent:
            return False
        return self._tree.is_ancestor(a, b)

    def dominates(self, a: Value, b: BasicBlock | Instruction | Use) -> bool:
        """Blocks: `block_dominates`. A value and an instruction: the value is
        available at that instruction. A value and a `Use`: available where the use
        happens (a phi operand is used at the end of its incoming block)."""
        if isinstance(b, Use):
            return self._dominates_use(a, b)
        if isinstance(a, BasicBlock) and isinstance(b, BasicBlock):
            return self.block_dominates(a, b)
        assert isinstance(b, Instruction)
        if not isinstance(a, Instruction):
            return True
        use_bb, def_bb = b.parent, a.parent
        assert use_bb is not None and def_bb is not None
        if not self.is_reachable(use_bb):
            return True
        if not self.is_reachable(def_bb):
            return False
        if a is b:
            return False
        if isinstance(a, (Invoke, CallBr)) or isinstance(b, Phi):
            return self._def_dominates_block(a, use_bb)
        if def_bb is not use_bb:
            return self.block_dominates(def_bb, use_bb)
        return self._order.comes_before(a, b)

    def strictly_dominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        return a is not b and self.block_dominates(a, b)

    def _def_dominates_block(self, d: Instruction, block: BasicBlock) -> bool:
        """`d` is available at the start of `block`."""
        def_bb = d.parent
        assert def_bb is not None
        if isinstance(d, Invoke):
            return self.edge_dominates(def_bb, d.normal_dest, block)
        if isinstance(d, CallBr):
            return self.edge_dominates(def_bb, d.successors[0], block)
        return def_bb is not block and self.block_dominates(def_bb, block)

    def edge_dominates(self, src: BasicBlock, dst: BasicBlock, block: BasicBlock) -> bool:
        """Every path from the entry to `block` uses the edge src -> dst."""
        if sum(1 for s in src.successors if s is dst) != 1:
            return False
        if not self.block_dominates(dst, block):
            return False
        return all(p is src or self.block_dominates(dst, p) for p in dst.predecessors)

    def _dominates_use(self, d: Value, use: Use) -> bool:
        if not isinstance(d, Instruction):
            return True
        user = use.user
        assert isinstance(user, Instruction)
        use_bb = user.operand(use.index + 1) if isinstance(user, Phi) else user.parent
        def_bb = d.parent
        assert isinstance(use_bb, BasicBlock) and def_bb is not None
        if not self.is_reachable(use_bb):
            return True
        if not self.is_reachable(def_bb):
            return False
        if isinstance(d, (Invoke, CallBr)):
            dest = d.normal_dest if isinstance(d, Invoke) else d.successors[0]
            if isinstance(user, Phi) and user.parent is dest and use_bb is def_bb:
                return sum(1 for s in def_bb.successors if s is dest) == 1
            return self.edge_dominates(def_bb, dest, use_bb)
        if def_bb is not use_bb:
            return self.block_dominates(def_bb, use_bb)
        if isinstance(user, Phi):
            return True
        return self._order.comes_before(d, user)


class _VirtualExit:
    """The node joining all exits of a function in the post-dominator tree."""

    def __repr__(self) -> str:
        return "<virtual exit>"


VIRTUAL_EXIT = _VirtualExit()


class PostDominatorTree:
    """Post-dominance, over all blocks, rooted at a virtual exit.

    The virtual exit's children are the blocks leaving the function (ret,
    unreachable, resume) plus, for regions that can never leave (infinite loops),
    one block per region chosen as deep as possible in the forward order, so
    every block has a post-dominator tree position like in LLVM.
    """

    def __init__(self, fn: Function) -> None:
        self.function = fn
        fwd = _post_order_from([fn.entry], successors)[::-1]
        seen = set(fwd)
        order = fwd + [b for b in fn.blocks if b not in seen]
        self.roots: list[BasicBlock] = exit_blocks(fn)
        """Children of the virtual exit: exits, then one block per infinite region."""
        reaching = set(_post_order_from(self.roots, lambda b: b.predecessors))
        for b in reversed(order):
            if b not in reaching:
                self.roots.append(b)
                reaching.update(_post_order_from([b], lambda x: x.predecessors))
        root_set = set(self.roots)

        def rsucc(n):
            return self.roots if n is VIRTUAL_EXIT else n.predecessors

        def rpred(n):
            if n is VIRTUAL_EXIT:
                return []
            return successors(n) + ([VIRTUAL_EXIT] if n in root_set else [])

        rpo = _post_order_from([VIRTUAL_EXIT], rsucc)[::-1]
        self._tree: _Tree = _Tree(VIRTUAL_EXIT, compute_idoms(rpo, rpred))
        self._rpred = rpred
        self._frontier: dict | None = None

    def ipdom(self, block: BasicBlock) -> BasicBlock | None:
        """Immediate post-dominator; None when it is the virtual exit."""
        p = self._tree.parent.get(block)
        return None if p is VIRTUAL_EXIT else p

    def children(self, block: BasicBlock | _VirtualExit) -> list[BasicBlock]:
        return self._tree.children.get(block, [])

    def post_dominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        """Every path from `b` to a function exit passes through `a` (reflexive)."""
        if a not in self._tree.parent or b not in self._tree.parent:
            return False
        return self._tree.is_ancestor(a, b)

    def nearest_common_post_dominator(self, a: BasicBlock, b: BasicBlock) -> BasicBlock | None:
        n = self._tree.nearest_common_ancestor(a, b)
        return None if n is VIRTUAL_EXIT else n

    def frontier(self, block: BasicBlock) -> list[BasicBlock]:
        """Post-dominance frontier: the branches `block` is control dependent on."""
        if self._frontier is None:
            self._frontier = self._tree.frontier(self._rpred)
        return [b for b in self._frontier.get(block, []) if b is not VIRTUAL_EXIT]
