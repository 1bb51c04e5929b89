"""Tapes of recursive functions and of OpenMP teams, and cache blocks, from a
per-thread stack that outlives the gradient call.

A tape is allocated by `augmented_g` and freed by `reverse_g`, nearly always in
the opposite order of allocation. With `malloc` and `free` every call of a
recursion paid for both (FFT: about 130,000 tapes per gradient call, and
`malloc_consolidate` in the objective's next `malloc`).
`__enzc_tape_alloc(bytes)` hands out 16-byte aligned blocks from the top of a
stack of this thread (`@__enzc_tape_stack`, `thread_local`, `linkonce_odr` so
that no module-level "PIE Level" turns its accesses into local-exec TLS, which a
shared library cannot link: merged with a PIE static archive, `enzcc -shared`
failed; its accesses are initial-exec there; libraries built by enzcc may share
one, its layout being the same), each behind a
16-byte header `{i64 previous block, i64 freed}`; `__enzc_tape_free(p)` marks its
block freed and pops every freed block from the top, so blocks freed out of order
are reclaimed once those above them are. Functions that may call themselves take
their tape structs from it (`split_mode`): LLVM removes the `malloc`'d tape of a
pair it inlines into its caller, which these opaque calls prevent. Derivatives run
by an OpenMP team (`Signature.parallel`) take their tapes from it too: thread t of
the reverse team frees, in the opposite order, what thread t of the forward team
allocated. Every derivative's once-per-call cache blocks come from it (`cache`):
freed with `free`, a large tape went back to the system at the end of each gradient
call (glibc trims the top of the heap; `malloc`'s per-thread arenas likewise after
each reverse pass of a team) and the next call page-faulted it in again. (Before the
alias scopes, `alias_scopes.py`, GPT's reverse matmul loop ran its scalar fallback
with cache blocks from the stack; with them it vectorizes as with `malloc`.)

When a block does not fit, it comes from `malloc` (header `{-2, 0}`, given back
by `free`) and its size is remembered: the next time the stack is empty it is
replaced by one large enough for all of it, so from the second gradient call on a
derivative's whole tape lives in the stack. The stack stays allocated (it is the
most tape one call of the thread used; a thread that exits leaves it behind). A
block of another thread's stack (a user passing a tape between threads) is left
alone: never marked freed, its owner's stack does not pop below it (its memory is
not reused, nothing breaks).
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.libc import declare, define_helper
from enzc.ir.module import Function, GlobalVariable, Module
from enzc.ir.types import I1, I8, I64, PTR, VOID, FunctionType, StructType
from enzc.ir.values import ConstantInt, Value, zeroinitializer

from enzc.ad.analysis.allocations import TAPE_ALLOC, TAPE_FREE

STACK = StructType((PTR, I64, I64, I64, I64))
"""`{ptr base, i64 top, i64 capacity, i64 last block, i64 bytes that did not fit}`."""
HEADER = StructType((I64, I64))
"""`{i64 previous block (-2: from malloc), i64 freed}` before each block."""
STACK_GLOBAL = "__enzc_tape_stack"
FROM_HEAP = -2
BLOCK_ALIGN = 16
"""What every block of `__enzc_tape_alloc` (and of glibc's `malloc`) is aligned to."""
SLACK = 65536
"""Bytes added to a regrown stack beyond what the last call needed."""


def _stack(module: Module) -> GlobalVariable:
    g = module.globals.get(STACK_GLOBAL)
    if g is None:
        g = module.add_global(STACK_GLOBAL, STACK, zeroinitializer(STACK))
        g.linkage.words = ["linkonce_odr", "thread_local"]
    return g


def _field(b: IRBuilder, s: Value, k: int) -> Value:
    return b.gep(STACK, s, [0, k], ("base", "topp", "capp", "lastp", "wantedp")[k])


def tape_alloc(module: Module) -> Function:
    """`ptr __enzc_tape_alloc(i64 bytes)`: a 16-byte aligned block (see the module docstring)."""
    fn, fresh = define_helper(module, TAPE_ALLOC, FunctionType(PTR, (I64,)), ("bytes",), ("noinline", "nounwind"))
    if not fresh:
        return fn
    fn.ret_attrs = ("noalias",)
    s = _stack(module)
    entry, check, regrow, heap, push = (new_block(fn, n) for n in ("entry", "check", "regrow", "heap", "push"))
    b = IRBuilder(entry)
    size = b.add(b.and_(b.add(fn.args[0], ConstantInt(I64, 15), "up"), ConstantInt(I64, -16), "n"),
                 ConstantInt(I64, 16), "need")
    top = b.load(I64, _field(b, s, 1), "top")
    cap = b.load(I64, _field(b, s, 2), "cap")
    wanted = b.load(I64, _field(b, s, 4), "wanted")
    fits = b.icmp("ule", b.add(top, size, "end"), cap, "fits")
    short = b.or_(b.icmp("ne", wanted, ConstantInt(I64, 0), "overflowed"), b.xor(fits, ConstantInt(I1, 1), "full"),
                  "short")
    b.cond_br(b.and_(b.icmp("eq", top, ConstantInt(I64, 0), "empty"), short, "grow"), regrow, check)
    b.position_at_end(check)
    b.cond_br(fits, push, heap)
    b.position_at_end(regrow)  # nothing lives in the stack: replace it by one for everything
    newcap = b.add(b.add(b.add(cap, wanted, "grown"), size, "grown"), ConstantInt(I64, SLACK), "newcap")
    b.call(declare(module, "free"), [b.load(PTR, _field(b, s, 0), "old")])
    b.store(b.call(declare(module, "malloc"), [newcap], "stack"), _field(b, s, 0))
    b.store(newcap, _field(b, s, 2))
    b.store(ConstantInt(I64, 0), _field(b, s, 4))
    b.br(push)
    b.position_at_end(heap)  # remembered: the stack grows when it is empty again
    b.store(b.add(wanted, size, "wanted.now"), _field(b, s, 4))
    block = b.call(declare(module, "malloc"), [size], "block")
    b.store(ConstantInt(I64, FROM_HEAP), block)
    b.ret(b.gep(I8, block, [16], "data"))
    b.position_at_end(push)
    at = b.load(I64, _field(b, s, 1), "at")
    header = b.gep(I8, b.load(PTR, _field(b, s, 0), "base.ptr"), [at], "header")
    b.store(b.load(I64, _field(b, s, 3), "last"), header)
    b.store(ConstantInt(I64, 0), b.gep(HEADER, header, [0, 1], "freedp"))
    b.store(b.add(at, size, "top.new"), _field(b, s, 1))
    b.store(at, _field(b, s, 3))
    b.ret(b.gep(I8, header, [16], "data"))
    return fn


def tape_free(module: Module) -> Function:
    """`void __enzc_tape_free(ptr p)`: gives back a block of `__enzc_tape_alloc`."""
    fn, fresh = define_helper(module, TAPE_FREE, FunctionType(VOID, (PTR,)), ("p",), ("noinline", "nounwind"))
    if not fresh:
        return fn
    s = _stack(module)
    names = ("entry", "heap", "stacked", "mine", "pop", "check", "done")
    entry, heap, stacked, mine, pop, check, done = (new_block(fn, n) for n in names)
    b = IRBuilder(entry)
    header = b.gep(I8, fn.args[0], [-16], "header")
    prev = b.load(I64, header, "prev")
    b.cond_br(b.icmp("eq", prev, ConstantInt(I64, FROM_HEAP), "from.heap"), heap, stacked)
    b.position_at_end(heap)
    b.call(declare(module, "free"), [header])
    b.ret_void()
    b.position_at_end(stacked)
    base = b.load(PTR, _field(b, s, 0), "base.ptr")
    offset = b.sub(b.ptrtoint(header, I64, "h"), b.ptrtoint(base, I64, "b"), "offset")
    inside = b.icmp("ult", offset, b.load(I64, _field(b, s, 2), "cap"), "inside")  # unsigned: below base too
    b.cond_br(inside, mine, done)
    b.position_at_end(mine)
    b.store(ConstantInt(I64, 1), b.gep(HEADER, header, [0, 1], "freedp"))
    b.br(check)
    b.position_at_end(check)  # pop freed blocks off the top
    top = b.load(I64, _field(b, s, 1), "top")
    b.cond_br(b.icmp("eq", top, ConstantInt(I64, 0), "empty"), done, pop)
    b.position_at_end(pop)
    last = b.load(I64, _field(b, s, 3), "last")
    lh = b.gep(I8, base, [last], "last.header")
    freed = b.load(I64, b.gep(HEADER, lh, [0, 1], "freedp"), "freed")
    popped = new_block(fn, "popped")
    b.cond_br(b.icmp("ne", freed, ConstantInt(I64, 0), "is.freed"), popped, done)
    b.position_at_end(popped)
    b.store(last, _field(b, s, 1))
    b.store(b.load(I64, lh, "before"), _field(b, s, 3))
    b.br(check)
    b.position_at_end(done)
    b.ret_void()
    return fn
