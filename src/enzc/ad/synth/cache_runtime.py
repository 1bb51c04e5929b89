"""Small IR functions the caches call at run time, defined once per module.

- `__enzc_cache_grow(hdr, iteration, row)`: geometric growth of a growing cache
  (`{ptr data, i64 capacity}` header) when an iteration reaches its capacity.
- `__enzc_arena_alloc(arena, bytes)` / `__enzc_arena_free(arena)`: a bump
  allocator for caches allocated once per iteration of an outer loop. The arena
  `{ptr last block, ptr cur, ptr end, i64 bytes}` (an entry `alloca` of the
  derivative, so each call, recursive ones included, has its own) hands out
  16-byte aligned pieces of heap blocks. A full block is never moved: a new one of
  at least twice the size is linked in front of it, so the pointers handed out
  stay valid and are cached like any other forward value; all blocks are freed
  together when the reverse of the loop nest is done. `bytes` sums the sizes of
  the blocks (for `--enzc-tape-stats`).
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.libc import declare, define_helper
from enzc.ir.module import Function, Module
from enzc.ir.types import I8, I64, PTR, VOID, FunctionType, StructType
from enzc.ir.values import ConstantInt, null

from enzc.ad.analysis.allocations import ARENA_ALLOC

HEADER = StructType((PTR, I64))
"""`{ptr data, i64 capacity}` of a growing cache."""
ARENA = StructType((PTR, PTR, PTR, I64))
"""`{ptr last block, ptr cur, ptr end, i64 bytes}` of a bump arena."""
GROW_HELPER = "__enzc_cache_grow"
ARENA_FREE = "__enzc_arena_free"
FIRST_BLOCK = 4096
"""Bytes of an arena's first heap block (link header included)."""
LINK = 16
"""Bytes before the data of an arena block: the pointer to the previous block, padded."""


def grow_helper(module: Module) -> Function:
    """`void __enzc_cache_grow(ptr hdr, i64 iteration, i64 row_bytes)`.

    Doubles the capacity (at least to iteration + 1) when `iteration` reaches it."""
    fn, fresh = define_helper(module, GROW_HELPER, FunctionType(VOID, (PTR, I64, I64)), ("hdr", "iteration", "row"))
    if not fresh:
        return fn
    hdr, it, row = fn.args
    entry, grow, done = new_block(fn, "entry"), new_block(fn, "grow"), new_block(fn, "done")
    b = IRBuilder(entry)
    capp = b.gep(HEADER, hdr, [0, 1], "capp")
    cap = b.load(I64, capp, "cap")
    b.cond_br(b.icmp("uge", it, cap, "full"), grow, done)
    b.position_at_end(grow)
    doubled = b.shl(cap, ConstantInt(I64, 1), "doubled")
    needed = b.add(it, ConstantInt(I64, 1), "needed")
    newcap = b.select(b.icmp("ugt", doubled, needed, "big"), doubled, needed, "newcap")
    data = b.load(PTR, hdr, "data")
    moved = b.call(declare(module, "realloc"), [data, b.mul(newcap, row, "bytes")], "moved")
    b.store(moved, hdr)
    b.store(newcap, capp)
    b.br(done)
    b.position_at_end(done)
    b.ret_void()
    return fn


def arena_alloc(module: Module) -> Function:
    """`ptr __enzc_arena_alloc(ptr arena, i64 bytes)`: 16-byte aligned, never moves."""
    fn, fresh = define_helper(module, ARENA_ALLOC, FunctionType(PTR, (PTR, I64)), ("arena", "bytes"))
    if not fresh:
        return fn
    arena, nbytes = fn.args
    entry, bump, fresh_block = new_block(fn, "entry"), new_block(fn, "bump"), new_block(fn, "block")
    b = IRBuilder(entry)
    n = b.and_(b.add(nbytes, ConstantInt(I64, 15), "n.up"), ConstantInt(I64, -16), "n")
    curp = b.gep(ARENA, arena, [0, 1], "curp")
    endp = b.gep(ARENA, arena, [0, 2], "endp")
    cur = b.load(PTR, curp, "cur")
    end = b.load(PTR, endp, "end")
    room = b.sub(b.ptrtoint(end, I64, "end.i"), b.ptrtoint(cur, I64, "cur.i"), "room")
    b.cond_br(b.icmp("ule", n, room, "fits"), bump, fresh_block)
    b.position_at_end(bump)
    b.store(b.gep(I8, cur, [n], "next"), curp)
    b.ret(cur)
    b.position_at_end(fresh_block)
    last = b.load(PTR, arena, "last")
    last_size = b.sub(b.ptrtoint(end, I64, "end.i2"), b.ptrtoint(last, I64, "last.i"), "last.size")
    doubled = b.shl(last_size, ConstantInt(I64, 1), "doubled")
    needed = b.add(n, ConstantInt(I64, LINK), "needed")
    size = b.select(b.icmp("ugt", doubled, needed, "big"), doubled, needed, "size")
    size = b.select(b.icmp("ugt", size, ConstantInt(I64, FIRST_BLOCK), "big2"), size,
                    ConstantInt(I64, FIRST_BLOCK), "size")
    block = b.call(declare(module, "malloc"), [size], "block")
    b.store(last, block)
    data = b.gep(I8, block, [LINK], "data")
    b.store(block, arena)
    b.store(b.gep(I8, data, [n], "next"), curp)
    b.store(b.gep(I8, block, [size], "end.new"), endp)
    bytesp = b.gep(ARENA, arena, [0, 3], "bytesp")
    b.store(b.add(b.load(I64, bytesp, "bytes"), size, "bytes.new"), bytesp)
    b.ret(data)
    return fn


def arena_free(module: Module) -> Function:
    """`void __enzc_arena_free(ptr arena)`: frees every block of the arena."""
    fn, fresh = define_helper(module, ARENA_FREE, FunctionType(VOID, (PTR,)), ("arena",))
    if not fresh:
        return fn
    (arena,) = fn.args
    entry, loop, body, done = (new_block(fn, n) for n in ("entry", "loop", "body", "done"))
    b = IRBuilder(entry)
    first = b.load(PTR, arena, "first")
    b.br(loop)
    b.position_at_end(loop)
    blk = b.phi(PTR, [(first, entry)], "blk")
    b.cond_br(b.icmp("eq", blk, null(PTR), "end"), done, body)
    b.position_at_end(body)
    prev = b.load(PTR, blk, "prev")
    b.call(declare(module, "free"), [blk])
    blk.add_incoming(prev, body)
    b.br(loop)
    b.position_at_end(done)
    b.ret_void()
    return fn


def arena_init(b: IRBuilder, arena) -> None:
    """Empty the arena (at the forward entry of the loop nest that uses it)."""
    b.store(null(PTR), arena)
    b.store(null(PTR), b.gep(ARENA, arena, [0, 1], "arena.cur"))
    b.store(null(PTR), b.gep(ARENA, arena, [0, 2], "arena.end"))
    b.store(ConstantInt(I64, 0), b.gep(ARENA, arena, [0, 3], "arena.bytes"))

