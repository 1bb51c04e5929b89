"""Bytes of an object that its class layout shows to hold no data: an empty member
and the padding after it, up to the next member, and the alignment padding between
and after members (`TBAAReader.padding_ranges`).

C++ gives every member an address, so an empty class member (Eigen's
`variable_if_dynamic<Index, 0>`, a size fixed at compile time) occupies a byte and
the next member's alignment adds padding. clang's IR type spells those bytes
`[8 x i8]`, as it spells a `char` array (which may hold anything, a `double`
included), and no instruction accesses them, so type analysis finds no type there
and a `memcpy` of the whole object (Eigen copies `Block` objects by value) could
not be differentiated. clang's struct-path TBAA tells the two apart: in the type
node of the enclosing class a `char` array is an `omnipotent char` member, an empty
class a record node without members (`TBAAReader.empty_member_ranges`).

Which class an object is comes from the access tags in reach of the copied
pointer: a load or store tagged `(base B, offset o)` through `p` says a `B` object
starts at `p - o` (strict aliasing, which clang's tags presume), so B's empty
ranges, shifted there, hold no data. The pointer's uses are followed through
constant GEPs, casts and into callees; an argument also takes the ranges that
every direct call site of its function agrees on (`callers.direct_call_sites`).
Optimized code also moves such objects through local byte arrays (SROA's slices)
and builds them field by field: bytes of a local object that no write covers, or
that only copies from such ranges write, hold no data either, when every other use
of the object only reads it (callees included).

What this presumes: a record node without members is an empty class. clang's
classic format lists neither a vtable pointer nor virtual bases, so a member whose
class has only those would look empty too; such classes have no trivial copy, and
bytes some access in reach types keep that type (only bytes nothing types are
asked about). A C++ class's last member's tail is never counted (a derived class
may place its own members there); a C struct's is.
"""

from __future__ import annotations

from enzc.ir.instructions import Alloca, CallBase, Cast, GetElementPtr, Load, Phi, Select, Store
from enzc.ir.module import Function, Module
from enzc.ir.values import Argument, ConstantInt, Value

from enzc.ad.typeanalysis.callers import direct_call_sites
from enzc.ad.typeanalysis.offsets import TypeSeeds, gep_offset, strip_constant_offsets
from enzc.ad.typeanalysis.tbaa import TBAAReader

Ranges = frozenset[tuple[int, int]]

MAX_VISITS = 512
"""Pointers visited per walk down the uses (larger objects' walks stop there)."""
MAX_CALL_DEPTH = 4
"""Callees followed below the copy's function."""
MAX_CALLER_DEPTH = 4
"""Callers followed above it."""


def empty_bytes(ptr: Value, reader: TBAAReader, seeds: TypeSeeds, module: Module | None) -> Ranges:
    """[start, end) byte ranges relative to `ptr` that the TBAA tags in reach show
    to be empty members and their padding in the object `ptr` points into."""
    root, offset = strip_constant_offsets(ptr, seeds)
    return _from_root(root, -offset, _Walk(reader, seeds, module), 0)


class _Walk:
    """What every step of one query needs."""

    def __init__(self, reader: TBAAReader, seeds: TypeSeeds, module: Module | None) -> None:
        self.reader, self.seeds, self.module = reader, seeds, module


def _from_root(root: Value, delta: int, walk: _Walk, depth: int) -> Ranges:
    """Ranges relative to the copied pointer P, for `root` = P + `delta`."""
    found = _down(root, delta, walk)
    if isinstance(root, Argument) and walk.module is not None and depth < MAX_CALLER_DEPTH:
        found |= _agreed_by_callers(root, delta, walk, depth)
    if isinstance(root, Alloca) and depth < MAX_CALLER_DEPTH:
        found |= frozenset((lo + delta, hi + delta) for lo, hi in _copied_in(root, walk, depth))
    return found


def _copied_in(alloca: Alloca, walk: _Walk, depth: int) -> Ranges:
    """Ranges of a local object (SROA's `[136 x i8]` slice of a copied `Block`)
    that only copies from empty ranges of other objects ever write: they hold what
    those hold, nothing. A write at an unknown place or an escape, and nothing is
    known; bytes a store writes are data."""
    writes = _writes(alloca, walk.seeds)
    if writes is None:
        return frozenset()
    moved: list[tuple[int, int, set[tuple[int, int]]]] = []
    for lo, hi, src in writes:
        empty: set[tuple[int, int]] = set()
        if src is not None:
            root, c = strip_constant_offsets(src, walk.seeds)
            empty = {(max(a + lo, lo), min(b + lo, hi)) for a, b in _from_root(root, -c, walk, depth + 1)
                     if a + lo < hi and b + lo > lo}
        moved.append((lo, hi, empty))
    candidates = {r for _, _, empty in moved for r in empty} | _never_written(alloca, writes, walk.seeds)
    return frozenset(r for r in candidates
                     if all(hi <= r[0] or lo >= r[1] or any(a <= r[0] and r[1] <= b for a, b in empty)
                            for lo, hi, empty in moved))


def _never_written(alloca: Alloca, writes: list[tuple[int, int, Value | None]],
                   seeds: TypeSeeds) -> set[tuple[int, int]]:
    """The byte ranges of `alloca` no write covers: uninitialized, no data (Eigen's
    expression objects are built field by field around an empty member)."""
    size = seeds.alloc_size(alloca.allocated_type) if alloca.count is None else None
    if not size:
        return set()
    gaps, pos = set(), 0
    for lo, hi, _ in sorted(writes, key=lambda w: (w[0], w[1])):
        if lo > pos:
            gaps.add((pos, lo))
        pos = max(pos, hi)
    if pos < size:
        gaps.add((pos, size))
    return gaps


def _writes(alloca: Alloca, seeds: TypeSeeds) -> list[tuple[int, int, Value | None]] | None:
    """(start, end, source) of every write to `alloca` (source: the pointer a
    memcpy/memmove of a constant length copies from, None for a store); None when
    a write is at an unknown place or the address escapes."""
    writes: list[tuple[int, int, Value | None]] = []
    work: list[tuple[Value, int]] = [(alloca, 0)]
    while work:
        v, at = work.pop()
        for use in list(v.uses):
            user = use.user
            if isinstance(user, Load) or (isinstance(user, CallBase) and _is_lifetime(user)):
                continue
            if isinstance(user, GetElementPtr) and user.ptr is v:
                off = gep_offset(user, seeds, {})
                if off is None or off[1] != 0:
                    return None
                work.append((user, at + off[0]))
            elif isinstance(user, Store) and user.ptr is v and user.value is not v:
                size = seeds.size(user.value.type)
                if size is None:
                    return None
                writes.append((at, at + size, None))
            elif isinstance(user, CallBase) and _is_copy(user) and isinstance(user.args[2], ConstantInt) \
                    and (user.args[0] is v) != (user.args[1] is v):
                if user.args[0] is v:
                    writes.append((at, at + user.args[2].value, user.args[1]))
            elif not (isinstance(user, CallBase) and _reads_only(user, v, 0)):
                return None
    return writes


def _only_read(v: Value, depth: int) -> bool:
    """Whether nothing writes through pointer `v` (a parameter): it is loaded from,
    offset, copied from or passed on to parameters only read in turn."""
    if depth > MAX_CALL_DEPTH:
        return False
    for use in list(v.uses):
        user = use.user
        if isinstance(user, Load) or (isinstance(user, CallBase) and _is_lifetime(user)):
            continue
        if isinstance(user, (GetElementPtr, Cast)) and user.operand(0) is v:
            if not _only_read(user, depth):
                return False
        elif isinstance(user, CallBase) and _is_copy(user) and user.args[0] is not v:
            continue
        elif not (isinstance(user, CallBase) and _reads_only(user, v, depth + 1)):
            return False
    return True


def _reads_only(call: CallBase, v: Value, depth: int) -> bool:
    """Whether `call` only reads through `v`: every operand slot holding `v` is a
    parameter of a defined callee that `_only_read`s it (not a variadic argument,
    a bundle operand or the callee)."""
    params = _parameters_passed(call, v)
    slots = sum(1 for op in call.operands if op is v)
    return bool(params) and slots == len(params) and all(_only_read(p, depth) for p in params)


def _is_copy(call: CallBase) -> bool:
    name = call.called_function.name if call.called_function is not None else ""
    return (name or "").startswith(("llvm.memcpy", "llvm.memmove"))


def _is_lifetime(call: CallBase) -> bool:
    name = call.called_function.name if call.called_function is not None else ""
    return (name or "").startswith(("llvm.lifetime.", "llvm.dbg."))


def _agreed_by_callers(arg: Argument, delta: int, walk: _Walk, depth: int) -> Ranges:
    """The ranges every direct call site shows for what it passes as `arg`."""
    assert walk.module is not None
    fn = arg.parent
    original = walk.module.get_function(fn.name or "") if isinstance(fn, Function) else None
    sites = direct_call_sites(walk.module, original) if original is not None else None
    agreed: Ranges | None = None
    for _, call in sites or []:
        if arg.index >= len(call.args):
            return frozenset()
        base, c = strip_constant_offsets(call.args[arg.index], walk.seeds)
        ranges = _from_root(base, delta - c, walk, depth + 1)
        agreed = ranges if agreed is None else agreed & ranges
        if not agreed:
            return frozenset()
    return agreed or frozenset()


def _down(root: Value, delta: int, walk: _Walk) -> Ranges:
    """Ranges from the tagged loads and stores through `root` + constant offsets,
    in its function and the callees it is passed to."""
    found: set[tuple[int, int]] = set()
    work: list[tuple[Value, int, int]] = [(root, delta, 0)]
    seen: set[tuple[int, int]] = set()
    phis: set[int] = set()
    while work and len(seen) < MAX_VISITS:
        v, d, calls = work.pop()
        if (id(v), d) in seen:
            continue
        seen.add((id(v), d))
        for use in list(v.uses):
            user = use.user
            if isinstance(user, GetElementPtr) and user.ptr is v:
                off = gep_offset(user, walk.seeds, {})
                if off is not None and off[1] == 0:
                    work.append((user, d + off[0], calls))
            elif isinstance(user, Cast) and user.opcode in ("bitcast", "addrspacecast"):
                work.append((user, d, calls))
            elif isinstance(user, (Phi, Select)) and id(user) not in phis:
                phis.add(id(user))  # once: a loop's `p + 24` comes back to it
                work.append((user, d, calls))
            elif isinstance(user, (Load, Store)) and user.ptr is v:
                found |= _tagged(user, d, walk.reader)
            elif isinstance(user, CallBase) and calls < MAX_CALL_DEPTH:
                work += [(a, d, calls + 1) for a in _parameters_passed(user, v)]
    return frozenset(found)


def _parameters_passed(call: CallBase, v: Value) -> list[Argument]:
    """The parameters of `call`'s defined callee that receive `v`."""
    callee = call.called_function
    if not isinstance(callee, Function) or callee.is_declaration:
        return []
    callee.blocks  # noqa: B018 -- parsing the body registers its parameters' uses
    return [callee.args[i] for i, a in enumerate(call.args[: len(callee.args)]) if a is v]


def _tagged(inst: Load | Store, d: int, reader: TBAAReader) -> set[tuple[int, int]]:
    """The empty ranges and padding of the object `inst`'s access tag names, for a
    pointer at `d`."""
    tag = inst.metadata.get("tbaa")
    base = reader.access_base(tag) if tag is not None else None
    if base is None:
        return set()
    node, offset = base
    start = d - offset
    ranges = reader.empty_member_ranges(node) + reader.padding_ranges(node) + reader.char_ranges(node)
    return {(start + lo, start + hi) for lo, hi in ranges}
