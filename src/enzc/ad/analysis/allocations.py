"""Heap allocations as facts: which calls allocate or free, where a pointer comes
from, and whether a block may outlive the call that made it.

`ALLOCATORS` names the allocation functions (C, the Itanium C++ `operator new`
family, and the engine's own `__enzc_arena_alloc` / `__enzc_adopt_aligned`, which
rewritten dynamic stack memory and `posix_memalign` blocks go through) with how
they take their size. `local_roots` and `pointer_sources` walk a pointer back
through address arithmetic to what it points into; `may_escape` decides whether a
block's shadow may be freed in the reverse pass (`memory.heap`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from enzc.ir.instructions import Alloca, CallBase, Cast, ExtractValue, Freeze, GetElementPtr, InsertValue, Instruction
from enzc.ir.instructions import Load, Phi, Ret, Select, Store
from enzc.ir.module import Function
from enzc.ir.types import PointerType
from enzc.ir.values import Argument, GlobalValue, Value

from enzc.ad.analysis.integer_addresses import integer_address
from enzc.ad.typeanalysis.strings import M_CREATE

ARENA_ALLOC = "__enzc_arena_alloc"
"""`ptr (ptr arena, i64 bytes)`: a piece of a bump arena (`synth.cache_runtime`)."""
TAPE_ALLOC = "__enzc_tape_alloc"
"""`ptr (i64 bytes)`: a block of the per-thread tape stack (`synth.tape_stack`)."""
TAPE_FREE = "__enzc_tape_free"
"""`void (ptr block)`: gives a block of `TAPE_ALLOC` back."""
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
    count_ref: int | None = None
    """The argument pointing to the `size_t` that, plus one, is the byte count once
    the call returned: `std::string`'s `_M_create(this, &capacity, old)` allocates
    `capacity + 1` characters (and may raise `capacity`)."""


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
    TAPE_ALLOC: Allocator((0,)),  # tapes and cache blocks of derivatives (higher-order AD sees them)
    # std::string's character block (libstdc++.so): fresh memory, written only by the
    # caller (its capacity argument is an integer); `analysis.inactive_memory`
    M_CREATE: Allocator((), count_ref=1),
}
"""Allocation functions by name (C and the Itanium C++ `operator new` family)."""

DEALLOCATORS = frozenset({
    "free", "_ZdlPv", "_ZdlPvm", "_ZdaPv", "_ZdaPvm", "_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t",
    "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t", "_ZdlPvRKSt9nothrow_t", "_ZdaPvRKSt9nothrow_t",
    TAPE_FREE,
})
"""Functions releasing a heap block: the block's first argument may not be read after them."""


ALLOCATOR_ATTR = '"enzyme_allocator"'
"""`"enzyme_allocator"="K"` on a function: the user's allocator, whose argument K is
the byte count (C: `__enzyme_allocation_like`, `markers`)."""


def allocator_of_function(fn: Function | None) -> Allocator | None:
    """How `fn` allocates, if it is an allocation function: a known one by name, or
    one the user registered (its body is then not differentiated: calls return
    fresh blocks whose shadows the derivative makes itself)."""
    if fn is None:
        return None
    known = ALLOCATORS.get(fn.name or "")
    if known is not None:
        return known
    prefix = ALLOCATOR_ATTR + "="
    for a in fn.fn_attrs:
        if a.startswith(prefix) and (index := a[len(prefix):].strip('"')).isdigit() \
                and int(index) < len(fn.function_type.params):
            return Allocator((int(index),))
    return None


def allocator_of(call: Instruction) -> Allocator | None:
    """The allocation function `call` calls, if it is one."""
    if not isinstance(call, CallBase):
        return None
    return allocator_of_function(call.called_function)


def is_allocation(v: Value) -> bool:
    return allocator_of(v) is not None  # type: ignore[arg-type]


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
    """The values `v` passes its pointer on from (address arithmetic, on pointers or
    on their bits, pointer casts, freeze, phis, selects); None when `v` makes or
    loads its pointer itself."""
    match v:
        case GetElementPtr():
            return [v.ptr]
        case Cast() if isinstance(v.operand(0).type.scalar, PointerType):
            return [v.operand(0)]
        case Cast() if (address := integer_address(v)) is not None:
            return [address.origin]
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
