"""How many bytes a pointer may reach before the end of the object it points into.

A `memcpy`/`memmove` of a run-time length cannot read or write outside the objects
its two pointers point into (that would be undefined behaviour), so the smaller of
their extents bounds the bytes it moves. libstdc++ moves a `std::string`'s
characters with `memcpy(node + 24, &key._M_local_buf, key.size() + 1)`: the length
is a run-time value, but the source is 16 bytes before the end of a local
`std::string`, so the copy moves at most those 16 bytes, never the `double` that
follows the destination in the map's node. Without the bound, type analysis joins
both objects' types over their whole length and finds conflicts that are not
there (and a copy it cannot type is a compile-time error).

An extent is known for a constant offset into a local alloca of constant count,
a global, or a heap block of constant size (`allocsize(...)`, which clang puts
on `operator new` and `malloc`); for a phi or select, the largest of its
choices; for an argument, the largest over every direct call site in the module
of the function of that name (`callers.direct_call_sites`; none when its address
escapes): the engine's private copies and derivatives only ever replace such calls;
for a pointer loaded from a local slot that nothing else writes or lets escape (a
`std::tuple` of references that `std::map` passes its key through), the largest
over the pointers stored there.
"""

from __future__ import annotations

import re

from enzc.ir.instructions import Alloca, CallBase, Cast, GetElementPtr, Load, Phi, Select, Store
from enzc.ir.module import Function, GlobalVariable, Module
from enzc.ir.values import Argument, ConstantInt, Value

from enzc.ad.typeanalysis.callers import direct_call_sites
from enzc.ad.typeanalysis.offsets import TypeSeeds, gep_offset

POINTER_BYTES = 8
MAX_DEPTH = 12
"""Steps through arguments, phis and selects before an extent counts as unknown."""

_ALLOCSIZE = re.compile(r"allocsize\((\d+)(?:,\s*(\d+))?\)")


def object_extent(ptr: Value, seeds: TypeSeeds, module: Module | None) -> int | None:
    """Bytes from `ptr` to the end of its object (an upper bound), or None."""
    return _extent(ptr, seeds, module, 0, frozenset())


def _extent(ptr: Value, seeds: TypeSeeds, module: Module | None, depth: int,
            visiting: frozenset[int]) -> int | None:
    if depth > MAX_DEPTH or id(ptr) in visiting:
        return None
    visiting = visiting | {id(ptr)}
    base, offset = _strip_constant_offsets(ptr, seeds)
    if base is None:
        return None
    size: int | None
    match base:
        case Alloca():
            size = _alloca_size(base, seeds)
        case GlobalVariable():
            size = seeds.alloc_size(base.value_type) or None  # `extern T a[]` is `[0 x T]`
        case CallBase():
            size = _allocation_size(base, module)
        case Phi() | Select():
            choices = [v for v, _ in base.incoming] if isinstance(base, Phi) else [base.true_value, base.false_value]
            size = _largest([_extent(v, seeds, module, depth + 1, visiting) for v in choices])
        case Argument() if module is not None and isinstance(base.parent, Function):
            sites = _call_sites(base, module)
            if not sites:
                return None
            size = _largest([_extent(call.args[base.index], seeds, module, depth + 1, visiting)
                             if base.index < len(call.args) else None for call in sites])
        case Load():
            stored = _stored_pointers(base.ptr, seeds, module)
            size = _largest([_extent(v, seeds, module, depth + 1, visiting) for v in stored or []])
        case _:
            return None
    if size is None or offset < 0 or offset > size:
        return None
    return size - offset


def _strip_constant_offsets(ptr: Value, seeds: TypeSeeds) -> tuple[Value | None, int]:
    offset = 0
    for _ in range(32):
        match ptr:
            case GetElementPtr():
                measured = gep_offset(ptr, seeds, {})
                if measured is None or measured[1] != 0:
                    return None, 0
                offset += measured[0]
                ptr = ptr.ptr
            case Cast(opcode="bitcast" | "addrspacecast" | "inttoptr" | "ptrtoint"):
                ptr = ptr.operand(0)
            case _:
                return ptr, offset
    return None, 0


def _call_sites(arg: Argument, module: Module) -> list[CallBase] | None:
    """Every direct call passing `arg`'s function its arguments (None: unknown)."""
    original = module.get_function(arg.parent.name or "")  # of a private copy too
    sites = direct_call_sites(module, original) if original is not None else None
    return [call for _, call in sites] if sites is not None else None


def _stored_pointers(slot: Value, seeds: TypeSeeds, module: Module | None, moved: int = 0) -> list[Value] | None:
    """What a load from `slot` may return: the values stored at that offset of the
    local alloca it points into (through an argument: at every call site), when
    every use of the alloca is a store into it, a load, a lifetime marker or an
    argument its callee only loads from; None if unknown."""
    base, offset = _strip_constant_offsets(slot, seeds)
    offset += moved
    if isinstance(base, Argument) and module is not None:
        sites = _call_sites(base, module)
        if not sites or any(base.index >= len(c.args) for c in sites):
            return None
        found: list[Value] = []
        for call in sites:
            more = _stored_pointers(call.args[base.index], seeds, None, offset)
            if more is None:
                return None
            found += more
        return found or None
    if not isinstance(base, Alloca):
        return None
    values: list[Value] = []
    if not _slot_uses(base, 0, offset, values, seeds, 0):
        return None
    return values or None


def _slot_uses(ptr: Value, at: int, offset: int, values: list[Value], seeds: TypeSeeds, depth: int) -> bool:
    """Collect into `values` the values stored at `offset` of an alloca, `ptr` being
    the alloca moved by `at`; False when a use may write it otherwise or let it escape."""
    if depth > 4:
        return False
    for use in ptr.uses:
        user = use.user
        match user:
            case Load():
                continue
            case Store() if user.ptr is ptr and user.value is not ptr:
                size = seeds.size(user.value.type) or 0
                if at == offset and size == POINTER_BYTES:
                    values.append(user.value)
                elif at < offset + 8 and offset < at + size:
                    return False  # part of the slot overwritten
            case GetElementPtr() if user.ptr is ptr:
                measured = gep_offset(user, seeds, {})
                if measured is None or measured[1] != 0 \
                        or not _slot_uses(user, at + measured[0], offset, values, seeds, depth + 1):
                    return False
            case CallBase() if _only_read(user, use.index):
                continue
            case _:
                return False
    return True


def _only_read(call: CallBase, index: int) -> bool:
    """Whether the callee of `call` only loads through its argument `index` (or it
    is a lifetime marker)."""
    fn = call.called_function
    if fn is None:
        return False
    if (fn.name or "").startswith(("llvm.lifetime.", "llvm.dbg.")):
        return True
    if fn.is_declaration or index >= len(fn.args):
        return False
    return all(isinstance(u.user, Load) for u in fn.args[index].uses)


def _largest(extents: list[int | None]) -> int | None:
    if not extents or any(e is None for e in extents):
        return None
    return max(e for e in extents if e is not None)


def _alloca_size(alloca: Alloca, seeds: TypeSeeds) -> int | None:
    each = seeds.alloc_size(alloca.allocated_type)
    if each is None or alloca.count is None:
        return each
    return each * alloca.count.value if isinstance(alloca.count, ConstantInt) else None


def _allocation_size(call: CallBase, module: Module | None) -> int | None:
    """The byte count of a call to a function declared `allocsize(n[, m])` with
    constant size arguments."""
    fn = call.called_function
    attrs = list(call.fn_attrs) + (list(fn.fn_attrs) if isinstance(fn, Function) else [])
    for attr in _expanded(attrs, module):
        found = _ALLOCSIZE.fullmatch(attr)
        if found is None:
            continue
        size = 1
        for index in (int(i) for i in found.groups() if i is not None):
            arg = call.args[index] if index < len(call.args) else None
            if not isinstance(arg, ConstantInt):
                return None
            size *= arg.value
        return size
    return None


def _expanded(attrs: list[str], module: Module | None) -> list[str]:
    out: list[str] = []
    for a in attrs:
        if a.startswith("#") and module is not None and a[1:] in module.attribute_groups:
            out += module.attribute_groups[a[1:]]
        else:
            out.append(a)
    return out
