"""Heap memory in derivatives: shadow allocations, their frees, and `realloc`.

An allocation (`malloc`, `calloc`, `realloc`, C++ `new`) whose memory holds active
data gets a *shadow allocation* in the forward pass, right after the primal one:
zero-filled (every usable byte, so a later shadow `realloc` may copy whole
blocks), made by `malloc` whatever the primal allocator was. The primal free
stays where it is: the reverse pass never reads primal memory after a release
(`free` clobbers it for recomputation, so such values are cached). The shadow is
freed in the reverse pass at the reverse of its allocation, which comes after
every reverse use of it; a shadow whose primal may outlive the call (returned,
stored into the caller's memory, handed to an unknown function) is not freed:
the caller owns it through the shadow structure it passed.

`realloc(p, n)` moves data: its shadow is a fresh zeroed block holding a copy of
the old shadow (pointers stored in the forward pass), and the old shadow stays
alive for the reverse pass. Its reverse adds the adjoints of the moved elements
back to the old block (`d_old += d_new` over the bytes that were moved) before
freeing the new shadow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from enzc.ir.builder import IRBuilder, get_or_insert_function, new_block
from enzc.ir.instructions import (
    Alloca,
    CallBase,
    Cast,
    ExtractValue,
    Freeze,
    GetElementPtr,
    InsertValue,
    Instruction,
    Invoke,
    Load,
    Phi,
    Ret,
    Select,
    Store,
)
from enzc.ir.module import Function, Module
from enzc.ir.types import I1, I8, I64, PTR, VOID, FunctionType, IntType, PointerType
from enzc.ir.values import Argument, ConstantInt, GlobalValue, Value

from enzc.ad.synth.cache_runtime import ARENA_ALLOC

if TYPE_CHECKING:
    from enzc.ad.synth.gradient_utils import GradientUtils


ADOPT_ALIGNED = "__enzc_adopt_aligned"
"""`ptr (ptr block, i64 align, i64 size)`, returning `block`: marks the block a
`posix_memalign` produced as a fresh allocation (`posix_memalign.py`)."""


@dataclass(frozen=True)
class Allocator:
    """How a heap allocation function takes its size."""

    size_args: tuple[int, ...]
    """Arguments whose product is the byte count."""
    moves_from: int | None = None
    """`realloc`: the argument holding the block whose contents move."""
    align_arg: int | None = None
    """The argument giving the block's alignment (`aligned_alloc`, aligned `new`):
    the shadow gets the same, since vector code may rely on it."""


ALLOCATORS: dict[str, Allocator] = {
    "malloc": Allocator((0,)),
    "calloc": Allocator((0, 1)),
    "realloc": Allocator((1,), moves_from=0),
    "aligned_alloc": Allocator((1,), align_arg=0),
    "_Znwm": Allocator((0,)),
    "_Znam": Allocator((0,)),
    "_ZnwmRKSt9nothrow_t": Allocator((0,)),
    "_ZnamRKSt9nothrow_t": Allocator((0,)),
    "_ZnwmSt11align_val_t": Allocator((0,), align_arg=1),
    "_ZnamSt11align_val_t": Allocator((0,), align_arg=1),
    "_ZnwmSt11align_val_tRKSt9nothrow_t": Allocator((0,), align_arg=1),
    "_ZnamSt11align_val_tRKSt9nothrow_t": Allocator((0,), align_arg=1),
    ADOPT_ALIGNED: Allocator((2,), align_arg=1),
    ARENA_ALLOC: Allocator((1,)),  # dynamic stack memory of the private copy (`dynamic_stack`)
}
"""Allocation functions by name (C and the Itanium C++ `operator new` family)."""

DEALLOCATORS = frozenset({
    "free", "_ZdlPv", "_ZdlPvm", "_ZdaPv", "_ZdaPvm", "_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t",
    "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t", "_ZdlPvRKSt9nothrow_t", "_ZdaPvRKSt9nothrow_t",
})
"""Functions releasing a heap block: the block's first argument may not be read after them."""

SHADOW_ALLOC = "__enzc_shadow_alloc"
SHADOW_ALLOC_ALIGNED = "__enzc_shadow_alloc_aligned"
SHADOW_REALLOC = "__enzc_shadow_realloc"


def allocator_of(call: Instruction) -> Allocator | None:
    """The allocation function `call` calls, if it is one."""
    if not isinstance(call, CallBase):
        return None
    fn = call.called_function
    return ALLOCATORS.get(fn.name or "") if fn is not None else None


def is_allocation(v: Value) -> bool:
    return allocator_of(v) is not None  # type: ignore[arg-type]


def is_deallocation_name(name: str | None) -> bool:
    return name in DEALLOCATORS


# -- where pointers come from -------------------------------------------------------------


def local_roots(ptr: Value) -> list[Instruction]:
    """Allocas and heap allocations `ptr` may point into that could get a shadow.

    Walks back through address arithmetic, casts, phis and selects, through the
    block argument of `realloc`, and through loads of pointers to the memory the
    pointer was loaded from (that memory must then hold shadow pointers too).
    """
    out: list[Instruction] = []

    def visit(v: Value) -> list[Value]:
        through = _passes_pointer_from(v)
        if through is not None:
            return through
        match v:
            case Alloca():
                out.append(v)
            case CallBase() if (alloc := allocator_of(v)) is not None:
                out.append(v)
                return [v.args[alloc.moves_from]] if alloc.moves_from is not None else []
            case Load():
                return [v.ptr]
        return []

    _walk_back(ptr, visit)
    return out


def pointer_sources(ptr: Value) -> list[Value]:
    """Every value `ptr` is derived from by address arithmetic, casts, phis and
    selects: allocations, arguments, globals, loads, calls (constants dropped)."""
    out: list[Value] = []

    def visit(v: Value) -> list[Value]:
        through = _passes_pointer_from(v)
        if through is not None:
            return through
        if isinstance(v, (Argument, GlobalValue, Instruction)):
            out.append(v)
        return []

    _walk_back(ptr, visit)
    return out


def _passes_pointer_from(v: Value) -> list[Value] | None:
    """The values `v` passes its pointer on from (address arithmetic, pointer casts,
    freeze, phis, selects); None when `v` makes or loads its pointer itself."""
    match v:
        case GetElementPtr():
            return [v.ptr]
        case Cast() if isinstance(v.operand(0).type.scalar, PointerType):
            return [v.operand(0)]
        case Freeze():
            return [v.operand(0)]
        case Phi():
            return [val for val, _ in v.incoming]
        case Select():
            return [v.true_value, v.false_value]
        case ExtractValue():
            return [v.operand(0)]
        case InsertValue():
            return [v.operand(0), v.operand(1)]
    return None


def _walk_back(ptr: Value, visit: Callable[[Value], list[Value]]) -> None:
    """Visit `ptr` and, once each, every value `visit` returns to continue with."""
    seen: set[int] = set()
    work = [ptr]
    while work:
        v = work.pop()
        if id(v) not in seen:
            seen.add(id(v))
            work.extend(visit(v))


# -- does an allocation outlive the call? ---------------------------------------------------

_HARMLESS_CALL_PREFIXES = ("llvm.lifetime.", "llvm.memset.", "llvm.memcpy.", "llvm.memmove.", "llvm.dbg.",
                           "llvm.assume", "llvm.prefetch", "llvm.invariant.", "llvm.objectsize")
_HARMLESS_CALLS = frozenset({"memset", "memcpy", "memmove", "strlen", "printf", "puts", "fprintf",
                             "malloc_usable_size"})


def may_escape(alloc: Instruction, _assumed: set[int] | None = None) -> bool:
    """Whether the block `alloc` returns may still be reachable after the function
    returns: returned, stored into memory that is not the function's own (or into
    a block that may escape), or passed to a call that might keep it.
    Conservative: True when unsure. Blocks being decided further up the
    recursion are assumed not to escape (a list's nodes point at each other)."""
    if isinstance(alloc, CallBase) and alloc.called_function is not None \
            and alloc.called_function.name == ARENA_ALLOC:
        return False  # the original's stack memory (`dynamic_stack`): it never outlives the call
    assumed = _assumed if _assumed is not None else set()
    assumed.add(id(alloc))
    fn = alloc.function
    tainted: set[int] = set()
    work: list[Value] = [alloc]
    holders: set[int] = set()
    """Local allocations holding a copy of the pointer (loads from them alias it)."""
    scanned_holders = 0
    while work:
        v = work.pop()
        if id(v) in tainted:
            continue
        tainted.add(id(v))
        for user in v.users:
            if _use_escapes(user, v, alloc, assumed, holders):
                return True
            if isinstance(user, (GetElementPtr, Cast, Freeze, Phi, Select)) and isinstance(user.type.scalar, PointerType):
                work.append(user)
        while not work and len(holders) != scanned_holders and fn is not None:
            scanned_holders = len(holders)
            for inst in fn.instructions():
                if isinstance(inst, Load) and isinstance(inst.type, PointerType) and id(inst) not in tainted:
                    if any(id(s) in holders for s in local_roots(inst.ptr)):
                        work.append(inst)
                elif _copies_from(inst, holders):  # the pointer moves on with the bytes holding it
                    for h in pointer_sources(inst.args[0]):  # type: ignore[attr-defined]
                        if not (isinstance(h, Alloca) or is_allocation(h)):
                            return True
                        holders.add(id(h))
    return False


def _copies_from(inst: Instruction, holders: set[int]) -> bool:
    """A memcpy/memmove whose source may be one of `holders`."""
    if not isinstance(inst, CallBase) or inst.called_function is None or len(inst.args) < 3:
        return False
    name = inst.called_function.name or ""
    if not (name.startswith(("llvm.memcpy.", "llvm.memmove.")) or name in ("memcpy", "memmove")):
        return False
    return any(id(s) in holders for s in pointer_sources(inst.args[1]))


def _use_escapes(user: Value, v: Value, alloc: Instruction, assumed: set[int], holders: set[int]) -> bool:
    match user:
        case Store() if user.value is v:
            for h in pointer_sources(user.ptr):
                if not (isinstance(h, Alloca) or is_allocation(h)):
                    return True
                if h is not alloc and id(h) not in assumed and is_allocation(h) and may_escape(h, assumed):  # type: ignore[arg-type]
                    return True
                holders.add(id(h))
            return False
        case Ret():
            return True
        case CallBase():
            callee = user.called_function
            name = callee.name if callee is not None else None
            if name is None:
                return True
            alloc_kind = allocator_of(user)
            if alloc_kind is not None and alloc_kind.moves_from is not None:
                return False  # realloc: the old block is released, the new one is its own allocation
            return not (name in DEALLOCATORS or name in _HARMLESS_CALLS or name.startswith(_HARMLESS_CALL_PREFIXES))
    return False


# -- forward: shadow allocations -----------------------------------------------------------------


def shadow_allocation(gu: GradientUtils, orig: CallBase, new: Instruction, name: str) -> Value:
    """Emit the shadow of allocation `orig` (forward clone `new`) right after it."""
    alloc = allocator_of(orig)
    assert alloc is not None
    b = IRBuilder()
    if isinstance(new, Invoke):  # C++ `new` with cleanups to run if it throws
        normal = new.normal_dest
        if len(normal.predecessors) != 1:
            raise gu.error(orig, "cannot place the shadow of an allocation whose normal successor is reached "
                                 "from elsewhere too", "compile with -fno-exceptions")
        b.position_after_phis(normal)
    else:
        b.position_after(new)
    if alloc.align_arg is not None:
        align = _byte_count(b, [gu.new_value(orig.args[alloc.align_arg])])
        size = _byte_count(b, _sizes(gu, orig, alloc))
        return b.call(_shadow_alloc_aligned_helper(gu.module), [align, size], name)
    if alloc.moves_from is None:
        return b.call(_shadow_alloc_helper(gu.module), [_byte_count(b, _sizes(gu, orig, alloc))], name)
    old = gu.shadow(orig.args[alloc.moves_from])
    made = gu.shadows.get(orig)
    if made is not None:
        return made  # `old` is a loop phi whose shadow needed this one first: one shadow block only
    return b.call(_shadow_realloc_helper(gu.module), [old, _byte_count(b, _sizes(gu, orig, alloc))], name)


def _sizes(gu: GradientUtils, orig: CallBase, alloc: Allocator) -> list[Value]:
    return [gu.new_value(orig.args[i]) for i in alloc.size_args]


def _byte_count(b: IRBuilder, parts: list[Value]) -> Value:
    total: Value | None = None
    for p in parts:
        if p.type != I64:
            assert isinstance(p.type, IntType)
            p = b.zext(p, I64, "size") if p.type.bits < 64 else b.trunc(p, I64, "size")
        total = p if total is None else b.mul(total, p, "size")
    assert total is not None
    return total


def _usable_size(module: Module) -> Function:
    return get_or_insert_function(module, "malloc_usable_size", FunctionType(I64, (PTR,)))


def _malloc(module: Module) -> Function:
    return get_or_insert_function(module, "malloc", FunctionType(PTR, (I64,)))


def _free(module: Module) -> Function:
    return get_or_insert_function(module, "free", FunctionType(VOID, (PTR,)))


def _memset(module: Module) -> Function:
    return get_or_insert_function(module, "llvm.memset.p0.i64", FunctionType(VOID, (PTR, I8, I64, I1)))


def _memcpy(module: Module) -> Function:
    return get_or_insert_function(module, "llvm.memcpy.p0.p0.i64", FunctionType(VOID, (PTR, PTR, I64, I1)))


def _define(module: Module, name: str, ftype: FunctionType, arg_names: list[str]) -> tuple[Function, bool]:
    fn = module.get_function(name)
    if fn is not None:
        return fn, False
    fn = module.add_function(name, ftype, unique=False)
    fn.linkage.words = ["internal"]
    fn.fn_attrs = ("nounwind",)
    for a, n in zip(fn.args, arg_names):
        a.name = n
    fn.blocks = []
    return fn, True


def _shadow_alloc_helper(module: Module) -> Function:
    """`ptr __enzc_shadow_alloc(i64 n)`: malloc(n) with every usable byte zeroed."""
    fn, fresh = _define(module, SHADOW_ALLOC, FunctionType(PTR, (I64,)), ["n"])
    if not fresh:
        return fn
    b = IRBuilder(new_block(fn, "entry"))
    _return_zeroed(module, b, b.call(_malloc(module), [fn.args[0]], "p"))
    return fn


def _return_zeroed(module: Module, b: IRBuilder, p: Value) -> None:
    """Zero every usable byte of the fresh block `p` (if not null) and return it."""
    fn = b.block.parent  # type: ignore[union-attr]
    fill, done = new_block(fn, "fill"), new_block(fn, "done")  # type: ignore[arg-type]
    b.cond_br(b.icmp("eq", p, b.const_zero(PTR), "null"), done, fill)
    b.position_at_end(fill)
    usable = b.call(_usable_size(module), [p], "usable")
    b.call(_memset(module), [p, ConstantInt(I8, 0), usable, ConstantInt(I1, 0)])
    b.br(done)
    b.position_at_end(done)
    b.ret(p)


def _shadow_alloc_aligned_helper(module: Module) -> Function:
    """`ptr __enzc_shadow_alloc_aligned(i64 align, i64 n)`: `aligned_alloc` of n bytes
    rounded up to the alignment, every usable byte zeroed."""
    fn, fresh = _define(module, SHADOW_ALLOC_ALIGNED, FunctionType(PTR, (I64, I64)), ["align", "n"])
    if not fresh:
        return fn
    align, n = fn.args
    b = IRBuilder(new_block(fn, "entry"))
    mask = b.sub(align, ConstantInt(I64, 1), "mask")
    rounded = b.and_(b.add(n, mask, "up"), b.xor(mask, ConstantInt(I64, -1), "keep"), "rounded")
    aligned_alloc = get_or_insert_function(module, "aligned_alloc", FunctionType(PTR, (I64, I64)))
    _return_zeroed(module, b, b.call(aligned_alloc, [align, rounded], "p"))
    return fn


def _shadow_realloc_helper(module: Module) -> Function:
    """`ptr __enzc_shadow_realloc(ptr old, i64 n)`: a zeroed block of n bytes that
    starts with a copy of `old` (whose usable bytes are all defined); `old` stays
    allocated, the reverse pass still needs it."""
    fn, fresh = _define(module, SHADOW_REALLOC, FunctionType(PTR, (PTR, I64)), ["old", "n"])
    if not fresh:
        return fn
    old, n = fn.args
    entry, copy, done = new_block(fn, "entry"), new_block(fn, "copy"), new_block(fn, "done")
    b = IRBuilder(entry)
    p = b.call(_shadow_alloc_helper(module), [n], "p")
    has_both = b.and_(b.icmp("ne", p, b.const_zero(PTR), "ok"), b.icmp("ne", old, b.const_zero(PTR), "had"), "both")
    b.cond_br(has_both, copy, done)
    b.position_at_end(copy)
    usable = b.call(_usable_size(module), [old], "old.usable")
    moved = b.select(b.icmp("ult", usable, n, "shrink"), usable, n, "moved")
    b.call(_memcpy(module), [p, old, moved, ConstantInt(I1, 0)])
    b.br(done)
    b.position_at_end(done)
    b.ret(p)
    return fn


# -- reverse ----------------------------------------------------------------------------------------


def reverse_allocation(gu: GradientUtils, orig: CallBase) -> None:
    """The reverse of a shadowed allocation: move the adjoints a `realloc` moved
    back to the old block, then free the shadow unless it may escape."""
    alloc = allocator_of(orig)
    assert alloc is not None
    if alloc.moves_from is not None and gu.activity.has_shadow(orig.args[alloc.moves_from]):
        _reverse_moved_contents(gu, orig, alloc)
    if may_escape(orig):
        return
    gu.b.call(_free(gu.module), [gu.lookup(gu.shadow(orig))])


def _reverse_moved_contents(gu: GradientUtils, orig: CallBase, alloc: Allocator) -> None:
    from enzc.ad.memory.memtypes import copy_adjoint_by_bytes

    b = gu.b
    old = gu.lookup(gu.shadow(orig.args[alloc.moves_from]))  # type: ignore[index]
    new = gu.lookup(gu.shadow(orig))
    n = _byte_count(b, [gu.lookup(gu.new_value(orig.args[i])) for i in alloc.size_args])
    usable = b.call(_usable_size(gu.module), [old], "old.usable")
    moved = b.select(b.icmp("ult", usable, n, "shrink"), usable, n, "moved")
    copy_adjoint_by_bytes(gu, orig, new, old, moved)
