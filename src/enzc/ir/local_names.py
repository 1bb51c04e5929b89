"""Unique local names (`x`, `x.1`, ...: LLVM's scheme) and new blocks of a function.

The builder names every value it creates through `fresh_local_name`; transforms
that add blocks use `new_block`. A function's taken names are read once and cached.
"""

from __future__ import annotations

import weakref

from enzc.ir.module import BasicBlock, Function


MAX_BASE_BYTES = 960
"""Longest base name kept (LLVM's limit is 1024 bytes; `.N` suffixes fit below it)."""


class _NameCache:
    """Names taken in one function, and its block count when they were read."""

    def __init__(self, fn: Function) -> None:
        self.taken = fn.local_names()
        self.blocks = len(fn.blocks)
        self.next_suffix: dict[str, int] = {}
        """Per base name, the first `.N` not yet tried (keeps naming O(1) per value)."""

    def take(self, base: str) -> str:
        """`base` if free, else `base.N` for the smallest untried free N (LLVM's scheme).
        A base longer than `MAX_BASE_BYTES` is cut there: LLVM refuses local names
        over 1024 bytes, and a prefix on a block named after a long C++ symbol
        (`rev.` + Eigen's 1,020-byte inlined-call labels) would exceed it."""
        if len(base.encode()) > MAX_BASE_BYTES:
            base = base.encode()[:MAX_BASE_BYTES].decode(errors="ignore")
        taken = self.taken
        if base not in taken:
            taken.add(base)
            return base
        n = self.next_suffix.get(base, 1)
        while f"{base}.{n}" in taken:
            n += 1
        self.next_suffix[base] = n + 1
        name = f"{base}.{n}"
        taken.add(name)
        return name


_NAME_CACHES: weakref.WeakKeyDictionary[Function, _NameCache] = weakref.WeakKeyDictionary()


_last: list = [None, None]
"""The most recently used (function, cache): transforms name many values in one
function in a row, and a weak-dictionary lookup per name is measurably slow."""


def _cache_for(fn: Function) -> _NameCache:
    cache = _last[1] if _last[0] is fn else _NAME_CACHES.get(fn)
    if cache is None or cache.blocks != len(fn.blocks):
        # New, or blocks were added or removed behind our back: re-read the names.
        cache = _NAME_CACHES[fn] = _NameCache(fn)
    _last[0], _last[1] = fn, cache
    return cache


def fresh_local_name(fn: Function, base: str) -> str:
    """A name unique among `fn`'s arguments, blocks and instructions; reserves it.

    The function's names are read once and cached (re-read when its block count
    changed behind our back). Code that names values itself instead of through
    the builder or this function must call `forget_names(fn)` afterwards; the
    verifier reports duplicate names.
    """
    return _cache_for(fn).take(base)


def _note_added_block(fn: Function) -> None:
    """Keep the cache's block count in step with a block added by this package."""
    cache = _last[1] if _last[0] is fn else _NAME_CACHES.get(fn)
    if cache is not None:
        cache.blocks = len(fn.blocks)


def forget_names(fn: Function) -> None:
    """Drop the cached names of `fn` (after naming values by hand)."""
    _NAME_CACHES.pop(fn, None)
    if _last[0] is fn:
        _last[0] = _last[1] = None


def new_block(fn: Function, name: str = "", after: BasicBlock | None = None) -> BasicBlock:
    """A new block in `fn` with a unique name, placed after `after` (default: last)."""
    block = BasicBlock(fresh_local_name(fn, name) if name else None, fn)
    blocks = fn.blocks
    if after is None or after is blocks[-1]:
        blocks.append(block)
    else:
        blocks.insert(blocks.index(after) + 1, block)
    _note_added_block(fn)
    return block
