"""`posix_memalign` as an allocation the AD can shadow.

`posix_memalign(&p, align, n)` returns its block through memory, not as a
result, so nothing marks `p` as a fresh allocation. On the private copy being
differentiated (after `preprocess.prepare`), each call is rewritten to write a private
slot, and the block read back from it passes through `__enzc_adopt_aligned`
(an identity function the heap code knows as an allocator, `allocations.ADOPT_ALIGNED`)
before it is stored to `p` — only on success, as POSIX says. The return code is
the library's own. The shadow is then made like any aligned allocation's.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.instructions import CallBase
from enzc.ir.libc import define_helper
from enzc.ir.module import Function, Module
from enzc.ir.types import I32, I64, PTR, FunctionType
from enzc.ir.values import ConstantInt

from enzc.ad.analysis.allocations import ADOPT_ALIGNED


def lower_posix_memalign(fn: Function, module: Module) -> None:
    """Rewrite `fn`'s calls of `posix_memalign` (see the module docstring)."""
    calls = [i for i in fn.instructions() if isinstance(i, CallBase) and i.called_function is not None
             and i.called_function.name == "posix_memalign" and len(i.args) == 3]
    if not calls:
        return
    adopt = _adopt_function(module)
    b = IRBuilder(fn.entry)
    for call in calls:
        out, align, size = call.args
        with b.goto_entry_allocas():
            slot = b.alloca(PTR, name="memalign.slot")
        b.position_before(call)
        b.store(b.const_zero(PTR), slot)
        call.set_operand(0, slot)
        b.position_after(call)
        block = b.load(PTR, slot, "memalign.block")
        fresh = b.call(adopt, [block, _wide(b, align), _wide(b, size)], "memalign.fresh")
        ok = b.icmp("eq", call, ConstantInt(I32, 0), "memalign.ok")
        old = b.load(PTR, out, "memalign.old")
        b.store(b.select(ok, fresh, old, "memalign.result"), out)


def _wide(b: IRBuilder, v):
    return v if v.type == I64 else b.zext(v, I64, "memalign.n")


def _adopt_function(module: Module) -> Function:
    """`ptr __enzc_adopt_aligned(ptr block, i64 align, i64 size)`: returns `block`."""
    fn, fresh = define_helper(module, ADOPT_ALIGNED, FunctionType(PTR, (PTR, I64, I64)), ())
    if fresh:
        IRBuilder(new_block(fn, "entry")).ret(fn.args[0])
    return fn
