"""Control-flow graph queries over a function's blocks.

The CFG is not stored: successors come from each block's terminator and
predecessors from the block's use list (branch operands are tracked uses), so
these helpers always see the current IR. Traversals are iterative, because
machine-generated functions can be deeper than Python's recursion limit.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from enzc.ir.module import BasicBlock, Function


def successors(block: BasicBlock) -> list[BasicBlock]:
    """Distinct successors in terminator order (a switch may name a block twice)."""
    return list(dict.fromkeys(block.successors))


def predecessors(block: BasicBlock) -> list[BasicBlock]:
    """Distinct predecessors (blocks whose terminator names `block`)."""
    return block.predecessors


def edge_count(src: BasicBlock, dst: BasicBlock) -> int:
    """How many terminator slots of `src` lead to `dst` (phis need one entry per edge)."""
    return sum(1 for s in src.successors if s is dst)


def post_order(fn: Function, entry: BasicBlock | None = None) -> list[BasicBlock]:
    """Blocks reachable from `entry` (default: the function's entry), children first."""
    start = entry if entry is not None else fn.entry
    return _post_order_from([start], successors)


def reverse_post_order(fn: Function, entry: BasicBlock | None = None) -> list[BasicBlock]:
    """Reachable blocks with every block before its successors, except along back edges."""
    order = post_order(fn, entry)
    order.reverse()
    return order


def _post_order_from(roots: Iterable[BasicBlock], next_of) -> list[BasicBlock]:
    """Iterative DFS post-order over `next_of` from each root in turn."""
    seen: set[BasicBlock] = set()
    out: list[BasicBlock] = []
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack: list[tuple[BasicBlock, Iterator[BasicBlock]]] = [(root, iter(next_of(root)))]
        while stack:
            node, it = stack[-1]
            for nxt in it:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, iter(next_of(nxt))))
                    break
            else:
                stack.pop()
                out.append(node)
    return out


def reachable_blocks(fn: Function) -> set[BasicBlock]:
    """Blocks reachable from the entry block."""
    return set(post_order(fn))


def unreachable_blocks(fn: Function) -> list[BasicBlock]:
    """Blocks not reachable from the entry, in function order."""
    live = reachable_blocks(fn)
    return [b for b in fn.blocks if b not in live]


def edges(fn: Function) -> list[tuple[BasicBlock, BasicBlock]]:
    """Distinct CFG edges (src, dst) in block order."""
    return [(b, s) for b in fn.blocks for s in successors(b)]


def is_critical_edge(src: BasicBlock, dst: BasicBlock) -> bool:
    """An edge from a block with several successors to a block with several predecessors.

    Code placed "on" such an edge needs a new block in between (see `split_edge`).
    """
    return len(successors(src)) > 1 and len(dst.predecessors) > 1


def exit_blocks(fn: Function) -> list[BasicBlock]:
    """Blocks whose terminator leaves the function (ret, unreachable, resume, ...)."""
    return [b for b in fn.blocks if b.terminator is not None and not b.successors]


def returning_blocks(fn: Function) -> list[BasicBlock]:
    """Blocks ending in `ret`."""
    return [b for b in fn.blocks if b.terminator is not None and b.terminator.opcode == "ret"]
