"""Natural loops of a function, as the reverse pass needs them.

The reverse pass runs every loop backwards, so it must know each loop's header,
body, latches, preheader and exits, and how loops nest. Irreducible control flow
has no such structure and is rejected (the caller turns that into a diagnostic).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from enzc.ir.cfg import reverse_post_order, successors
from enzc.ir.dominators import DominatorTree
from enzc.ir.module import BasicBlock, Function


class IrreducibleError(Exception):
    """The CFG has a cycle entered other than through a single dominating header."""

    def __init__(self, block: BasicBlock) -> None:
        super().__init__(f"irreducible control flow at block %{block.name}")
        self.block = block


@dataclass(eq=False)
class Loop:
    """One natural loop: a header and every block that reaches a back edge to it."""

    header: BasicBlock
    blocks: set[BasicBlock]
    parent: Loop | None = None
    children: list[Loop] = field(default_factory=list)

    def contains(self, block: BasicBlock) -> bool:
        return block in self.blocks

    @property
    def depth(self) -> int:
        d, p = 1, self.parent
        while p is not None:
            d, p = d + 1, p.parent
        return d

    @property
    def latches(self) -> list[BasicBlock]:
        return [p for p in self.header.predecessors if p in self.blocks]

    @property
    def preheader(self) -> BasicBlock | None:
        """The unique outside predecessor of the header, if it branches only there."""
        outside = [p for p in self.header.predecessors if p not in self.blocks]
        if len(outside) == 1 and successors(outside[0]) == [self.header]:
            return outside[0]
        return None

    @property
    def exiting_blocks(self) -> list[BasicBlock]:
        return [b for b in self.blocks if any(s not in self.blocks for s in successors(b))]

    @property
    def exit_blocks(self) -> list[BasicBlock]:
        out: dict[BasicBlock, None] = {}
        for b in self.blocks:
            for s in successors(b):
                if s not in self.blocks:
                    out[s] = None
        return list(out)

    def enclosing(self) -> list[Loop]:
        """This loop and its parents, outermost first."""
        chain: list[Loop] = []
        loop: Loop | None = self
        while loop is not None:
            chain.append(loop)
            loop = loop.parent
        return chain[::-1]

    def __repr__(self) -> str:
        return f"<Loop %{self.header.name} ({len(self.blocks)} blocks)>"


class LoopNest:
    """All natural loops of a function and the innermost loop of each block."""

    def __init__(self, fn: Function, domtree: DominatorTree | None = None) -> None:
        self.function = fn
        dt = domtree or DominatorTree(fn)
        self.loops: list[Loop] = []
        rpo = reverse_post_order(fn)
        order = {b: i for i, b in enumerate(rpo)}
        by_header: dict[BasicBlock, Loop] = {}
        for b in rpo:
            for s in successors(b):
                if order.get(s, -1) > order[b]:
                    continue
                if not dt.block_dominates(s, b):
                    raise IrreducibleError(s)
                loop = by_header.get(s)
                if loop is None:
                    loop = by_header[s] = Loop(s, {s})
                _grow(loop, b)
        self.loops = sorted(by_header.values(), key=lambda lp: len(lp.blocks))
        self._innermost: dict[BasicBlock, Loop] = {}
        for loop in self.loops:  # smallest first: the first loop seen is innermost
            for b in loop.blocks:
                self._innermost.setdefault(b, loop)
        for loop in self.loops:
            parent = None
            for other in self.loops:
                if other is not loop and loop.header in other.blocks and len(other.blocks) > len(loop.blocks):
                    if parent is None or len(other.blocks) < len(parent.blocks):
                        parent = other
            loop.parent = parent
            if parent is not None:
                parent.children.append(loop)

    def loop_of(self, block: BasicBlock) -> Loop | None:
        """The innermost loop containing `block`."""
        return self._innermost.get(block)

    def loops_of(self, block: BasicBlock) -> list[Loop]:
        """Loops containing `block`, outermost first."""
        loop = self.loop_of(block)
        return loop.enclosing() if loop is not None else []

    @property
    def top_level(self) -> list[Loop]:
        return [lp for lp in self.loops if lp.parent is None]


def _grow(loop: Loop, latch: BasicBlock) -> None:
    """Add every block that reaches `latch` without passing the header."""
    stack = [latch]
    while stack:
        b = stack.pop()
        if b in loop.blocks:
            continue
        loop.blocks.add(b)
        stack.extend(b.predecessors)
