"""Minimum cuts by maximum flow, for choosing which forward values to cache.

`synth.recompute` builds a graph in which every forward value is an edge whose
capacity is what caching it costs; a minimum cut between the values that cannot be
recomputed and the values the reverse pass needs is the cheapest set to cache.
"""

from __future__ import annotations

from collections import deque


class FlowGraph:
    """Integer max-flow (shortest augmenting paths) on an adjacency list."""

    def __init__(self, size: int) -> None:
        self.adj: list[list[int]] = [[] for _ in range(size)]
        self.to: list[int] = []
        self.cap: list[int] = []

    def add(self, u: int, v: int, cap: int) -> None:
        self.adj[u].append(len(self.to))
        self.to.append(v)
        self.cap.append(cap)
        self.adj[v].append(len(self.to))
        self.to.append(u)
        self.cap.append(0)

    def min_cut_sink_side(self, s: int, t: int) -> set[int]:
        """Saturate s→t, then the nodes that still reach t in the residual graph."""
        while True:
            parent_edge = {s: -1}
            queue = deque([s])
            while queue and t not in parent_edge:
                u = queue.popleft()
                for e in self.adj[u]:
                    w = self.to[e]
                    if self.cap[e] > 0 and w not in parent_edge:
                        parent_edge[w] = e
                        queue.append(w)
            if t not in parent_edge:
                break
            path, w = [], t
            while w != s:
                e = parent_edge[w]
                path.append(e)
                w = self.to[e ^ 1]
            push = min(self.cap[e] for e in path)
            for e in path:
                self.cap[e] -= push
                self.cap[e ^ 1] += push
        reach = {t}
        queue = deque([t])
        while queue:
            u = queue.popleft()
            for e in self.adj[u]:  # edge e: u→w; its pair e^1: w→u has residual cap[e^1]
                w = self.to[e]
                if self.cap[e ^ 1] > 0 and w not in reach:
                    reach.add(w)
                    queue.append(w)
        return reach
