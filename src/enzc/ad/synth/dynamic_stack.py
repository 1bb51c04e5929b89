"""Stack memory the reverse pass still needs: dynamic allocas become arena blocks.

A C99 variable-length array, `alloca(n)` or Eigen's stack buffers (`alloca i8, i64 %n`)
live until the function returns, or until the `llvm.stackrestore` that ends their
scope. The reverse pass runs after that: in a loop, each iteration's array reuses
the previous one's stack (so its shadow held another iteration's adjoints), and in a
split derivative the forward frame is gone before the reverse function runs. On the
private copy being differentiated, each dynamic alloca therefore becomes a block of
a bump arena of the derivative (`__enzc_arena_alloc`, which the heap code knows as
an allocator, so the block gets a zeroed shadow like any heap block), the stack
save/restore pairs go, and the derivative frees the arena when its reverse pass is
done (`free_dynamic_stack`). Static entry-block allocas are untouched.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import Alloca, CallBase
from enzc.ir.module import Function, Module
from enzc.ir.types import I8, I64
from enzc.ir.values import ConstantInt, Value

from enzc.ad.synth.cache_runtime import ARENA, arena_alloc, arena_free, arena_init

_ARENA_ALIGN = 16
"""What `__enzc_arena_alloc` guarantees; larger alignments are rounded up by hand."""


def lower_dynamic_allocas(fn: Function, module: Module, layout) -> Alloca | None:
    """Rewrite `fn`'s dynamic allocas (see the module docstring); returns the arena
    slot the derivative must free at the end of its reverse pass, or None."""
    dynamic = [i for i in fn.instructions() if isinstance(i, Alloca) and not _static(i, fn)]
    if not dynamic:
        return None
    b = IRBuilder(fn.entry)
    with b.goto_entry_allocas():
        arena = b.alloca(ARENA, name="stack.arena")
    b.position_after(arena)
    arena_init(b, arena)
    alloc = arena_alloc(module)
    for inst in dynamic:
        b.position_before(inst)
        size = ConstantInt(I64, layout.alloc_size_of(inst.allocated_type))
        count = inst.count
        nbytes: Value = size
        if count is not None:
            wide = count if count.type == I64 else b.zext(count, I64, "n")
            nbytes = b.mul(wide, size, "stack.bytes")
        align = inst.align or _ARENA_ALIGN
        if align > _ARENA_ALIGN:
            nbytes = b.add(nbytes, ConstantInt(I64, align - 1), "stack.bytes")
        block: Value = b.call(alloc, [arena, nbytes], "stack.block")
        if align > _ARENA_ALIGN:
            addr = b.ptrtoint(block, I64, "stack.addr")
            up = b.and_(b.add(addr, ConstantInt(I64, align - 1), "stack.up"), ConstantInt(I64, -align), "stack.up")
            block = b.gep(I8, block, [b.sub(up, addr, "stack.pad")], "stack.aligned")
        inst.replace_all_uses_with(block)
        inst.erase()
    _drop_stack_scopes(fn)
    return arena


def free_dynamic_stack(b: IRBuilder, module: Module, arena: Value) -> None:
    """Free the arena's blocks (at the end of the reverse pass)."""
    b.call(arena_free(module), [arena])


def _static(inst: Alloca, fn: Function) -> bool:
    return inst.parent is fn.entry and (inst.count is None or isinstance(inst.count, ConstantInt))


def _drop_stack_scopes(fn: Function) -> None:
    """`llvm.stackrestore` would free nothing now; its `llvm.stacksave` goes with it."""
    calls = [i for i in fn.instructions() if isinstance(i, CallBase) and i.called_function is not None
             and (i.called_function.name or "").startswith(("llvm.stackrestore", "llvm.stacksave"))]
    for call in sorted(calls, key=lambda c: not (c.called_function.name or "").startswith("llvm.stackrestore")):
        if not call.uses:
            call.erase()
