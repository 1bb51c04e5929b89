"""Byte facts type analysis needs from the IR: what an IR type alone says about a
value, and which bytes a GEP moves a pointer by.

A GEP moves by a constant plus variable terms; for the variable part we only
need a number every possible offset is a multiple of (the *period*), so that an
array walk `a + 8*i` folds its pointee facts modulo 8. `multiple_of` finds that
number through `mul`/`shl`/`add`/casts/phis (optimistically through loop
phis: an induction variable stepping by 8 from 0 is a multiple of 8).
"""

from __future__ import annotations

import re
from math import gcd

from enzc.ir.datalayout import DataLayout, DataLayoutError
from enzc.ir.instructions import Alloca, BinaryOp, Cast, GetElementPtr, Phi, Select
from enzc.ir.types import FLOAT_KINDS, ArrayType, FloatType, IntType, NamedStructType, PointerType, StructType, Type
from enzc.ir.types import VectorType
from enzc.ir.values import ConstantExpr, ConstantInt, ConstantSimple, Value

from enzc.ad.typeanalysis.typetree import ANYTHING, INTEGER, MAX_ENTRIES, POINTER, BaseType, Path, TypeTree, float_type

_MAX_ARRAY_ENTRIES = 256
"""Arrays with more elements than this are seeded as `-1` (every element) at once."""


class TypeSeeds:
    """Value trees implied by IR types, memoised per type."""

    def __init__(self, layout: DataLayout) -> None:
        self.layout = layout
        self._cache: dict[Type, TypeTree] = {}

    def size(self, t: Type) -> int | None:
        """Store size in bytes, None for unsized types (void, label, opaque...)."""
        try:
            return self.layout.size_of(t)
        except (DataLayoutError, TypeError, ValueError):
            return None

    def alloc_size(self, t: Type) -> int | None:
        try:
            return self.layout.alloc_size_of(t)
        except (DataLayoutError, TypeError, ValueError):
            return None

    def of_type(self, t: Type, declared_integers: bool = True) -> TypeTree:
        """What the IR type says: floats are floats, `ptr` is a pointer, `i1` and
        odd widths are integers. Byte-multiple integers say nothing (they move
        floats and pointers around in optimized code), except as fields of a named
        struct: clang's type of a declaration (unions excepted) keeps C's types."""
        key = (t, declared_integers)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = self._compute(t, declared_integers)
        return cached

    def _compute(self, t: Type, declared_integers: bool) -> TypeTree:
        match t:
            case FloatType(kind=k):
                return TypeTree.scalar(float_type(k))
            case PointerType():
                return TypeTree.scalar(POINTER)
            case IntType(bits=b):
                return TypeTree.scalar(INTEGER) if b == 1 or b % 8 else TypeTree()
            case VectorType(element=e):
                inner = self.of_type(e, declared_integers)
                return TypeTree({p: v for p, v in inner.items() if p[0] == -1})
            case StructType() | NamedStructType():
                if t.elements is None or is_union(t):  # type: ignore[union-attr]
                    return TypeTree()
                try:
                    offsets = self.layout.struct_layout(t).offsets
                except DataLayoutError:
                    return TypeTree()
                entries: dict[Path, BaseType] = {}
                covered: set[int] = set()
                declared = declared_integers and isinstance(t, NamedStructType)
                for off, e in zip(offsets, t.elements):  # type: ignore[union-attr]
                    size = self.size(e) or 0
                    covered.update(range(off, off + size))
                    field = self._declared_integer(e, size) if declared else None
                    for p, v in (field or self.of_type(e, declared_integers)).expand(size).items():
                        entries[(p[0] + off, *p[1:])] = v
                size = self.size(t)
                for byte in range(size or 0):  # alignment padding holds no data
                    if byte not in covered:
                        entries[(byte,)] = ANYTHING
                if declared_integers and len(entries) > MAX_ENTRIES:
                    return self.of_type(t, False)  # integer bytes would crowd out the pointers and floats
                tree = TypeTree(entries)
                return tree.canonicalize(size) if size else tree
            case ArrayType(count=n, element=e):
                inner = self.of_type(e, declared_integers)
                stride = self.alloc_size(e)
                esize = self.size(e)
                if not inner or not stride or not esize:
                    return TypeTree()
                if n > _MAX_ARRAY_ENTRIES:
                    uniform = set(inner.first_level()) == {-1} and esize == stride
                    return inner if uniform else TypeTree()
                entries = {}
                expanded = inner.expand(esize)
                for i in range(n):
                    for p, v in expanded.items():
                        entries[(p[0] + i * stride, *p[1:])] = v
                size = self.size(t)
                tree = TypeTree(entries)
                return tree.canonicalize(size) if size else tree
        return TypeTree()

    def _declared_integer(self, field: Type, size: int) -> TypeTree | None:
        """A field of a named struct (clang's type of a C/C++ declaration) that is an
        integer, or an array of them: integer bytes. Only there: optimized code's own
        integer types (literal structs, loads, SROA's pieces) may carry floats."""
        match field:
            case IntType():
                return _integer_bytes(size)
            case ArrayType(element=IntType()):
                return _integer_bytes(size)
        return None


def declared_scalar(t: Type, offset: int, layout: DataLayout, named: bool = False) -> tuple[Type, int] | None:
    """The scalar field of C type `t` (an alloca's or global's declared type) holding
    byte `offset`, and where it starts; integers only inside a named struct (clang's
    type of a declaration, a lone `i8` too: no float fits in it, and clang gives
    a `bool` and an empty member that type); unions and byte arrays say nothing."""
    match t:
        case NamedStructType() | StructType() if t.elements is not None and not is_union(t):
            try:
                offsets = layout.struct_layout(t).offsets
            except DataLayoutError:
                return None
            for off, e in zip(offsets, t.elements):
                if off <= offset < off + layout.alloc_size_of(e):
                    inner = declared_scalar(e, offset - off, layout, named or isinstance(t, NamedStructType))
                    return (inner[0], inner[1] + off) if inner is not None else None
            return None
        case ArrayType(element=IntType(bits=8)):
            return None
        case ArrayType(element=e):
            esize = layout.alloc_size_of(e)
            inner = declared_scalar(e, offset % esize, layout, named) if esize else None
            return (inner[0], inner[1] + offset - offset % esize) if inner is not None else None
        case IntType(bits=b) if named and b % 8 == 0:
            return t, 0
        case FloatType() | PointerType():
            return t, 0
    return None


def declared_field(t: Type, offset: int, size: int, layout: DataLayout) -> Type | None:
    """The declared scalar exactly at `[offset, offset + size)` of `t` (see `declared_scalar`)."""
    found = declared_scalar(t, offset, layout)
    if found is None or found[1] != offset or layout.size_of(found[0]) != size:
        return None
    return found[0]


def declared_integers(t: Type, lo: int, hi: int, layout: DataLayout) -> bool:
    """Whether every byte of `[lo, hi)` of `t` lies in a declared integer field."""
    byte = lo
    while byte < hi:
        found = declared_scalar(t, byte, layout)
        if found is None or not isinstance(found[0], IntType):
            return False
        byte = found[1] + layout.size_of(found[0])
    return True


def alloca_offset(v: Value, seeds: TypeSeeds) -> tuple[Alloca, int] | None:
    """(alloca, byte offset) when `v` is a constant offset into a local alloca."""
    offset = 0
    for _ in range(32):
        match v:
            case Alloca():
                return v, offset
            case GetElementPtr():
                measured = gep_offset(v, seeds, {})
                if measured is None or measured[1] != 0:
                    return None
                offset += measured[0]
                v = v.ptr
            case Cast(opcode="bitcast"):
                v = v.operand(0)
            case _:
                return None
    return None


def _integer_bytes(n: int) -> TypeTree:
    return TypeTree({(o,): INTEGER for o in range(n)})


def is_union(t: Type) -> bool:
    """clang names a union after one member (`%union.U = type { double }`); its
    other members may be used too, so its IR type says nothing."""
    return isinstance(t, NamedStructType) and t.name.startswith("union.")


def multiple_of(v: Value, memo: dict[Value, int] | None = None) -> int:
    """A number `v` is always a multiple of (0: `v` is zero; 1: nothing known)."""
    memo = {} if memo is None else memo
    return _multiple(v, memo, 0)


def _multiple(v: Value, memo: dict[Value, int], depth: int) -> int:
    if isinstance(v, ConstantInt):
        return abs(v.value)
    if v in memo:
        return memo[v]
    if depth > 12:
        return 1
    memo[v] = 0  # optimistic for cycles through phis: the cycle adds no new factor
    result = _exact_divisor(v)
    match v:
        case BinaryOp(opcode="mul"):
            result = _multiple(v.lhs, memo, depth + 1) * _multiple(v.rhs, memo, depth + 1)
        case BinaryOp(opcode="shl") if isinstance(v.rhs, ConstantInt) and 0 <= v.rhs.value < 64:
            result = _multiple(v.lhs, memo, depth + 1) << v.rhs.value
        case BinaryOp(opcode="add" | "sub"):
            result = gcd(_multiple(v.lhs, memo, depth + 1), _multiple(v.rhs, memo, depth + 1))
        case BinaryOp(opcode="or") if "disjoint" in v.flags:
            result = gcd(_multiple(v.lhs, memo, depth + 1), _multiple(v.rhs, memo, depth + 1))
        case Cast(opcode="sext" | "zext"):
            result = _multiple(v.value, memo, depth + 1)
        case Phi():
            result = 0
            for inc, _ in v.incoming:
                result = gcd(result, _multiple(inc, memo, depth + 1))
        case Select():
            result = gcd(_multiple(v.true_value, memo, depth + 1), _multiple(v.false_value, memo, depth + 1))
    result = _lcm(result, _exact_divisor(v)) if result else result
    memo[v] = result
    return result


def _exact_divisor(v: Value) -> int:
    """A divisor `v` is known to have because the program divides it exactly
    (`sdiv exact %d, 24` of a pointer difference: a count of 24-byte elements)."""
    best = 1
    for use in v.uses:
        user = use.user
        if not isinstance(user, BinaryOp) or "exact" not in user.flags or use.index != 0:
            continue
        d = user.rhs
        if not isinstance(d, ConstantInt) or d.value <= 0:
            continue
        if user.opcode in ("sdiv", "udiv"):
            best = _lcm(best, d.value)
        elif user.opcode in ("ashr", "lshr") and d.value < 64:
            best = _lcm(best, 1 << d.value)
    return best


def _lcm(a: int, b: int) -> int:
    return a * b // gcd(a, b) if a and b else 0


def gep_offset(gep: GetElementPtr, seeds: TypeSeeds, memo: dict[Value, int]) -> tuple[int, int] | None:
    """`(constant, period)` of the bytes `gep` adds to its pointer: the offset is
    `constant + k*period` for some integer k; period 0 means all indices are
    constant. None when the GEP cannot be measured (vector GEPs, unsized types)."""
    if isinstance(gep.type, VectorType):
        return None
    t: Type = gep.source_type
    const, period = 0, 0
    for n, idx in enumerate(gep.indices):
        if n == 0:
            scale = seeds.alloc_size(t)
        else:
            match t:
                case StructType() | NamedStructType():
                    if not isinstance(idx, ConstantInt):
                        return None
                    try:
                        const += seeds.layout.element_offset(t, idx.value)
                    except (DataLayoutError, IndexError):
                        return None
                    t = t.elements[idx.value]  # type: ignore[index]
                    continue
                case ArrayType(element=e) | VectorType(element=e):
                    t = e
                    scale = seeds.alloc_size(e)
                case _:
                    return None
        if scale is None:
            return None
        if isinstance(idx, ConstantInt):
            const += idx.value * scale
        elif isinstance(idx.type, IntType):
            period = gcd(period, scale * multiple_of(idx, memo))
        else:
            return None
    return const, period


def strip_constant_offsets(value: Value, seeds: TypeSeeds, memo: dict[Value, int] | None = None) -> tuple[Value, int]:
    """`(base, c)` with `value == base + c` through constant GEPs and pointer
    casts; `base` is the first value that is not such a step."""
    total = 0
    for _ in range(16):
        match value:
            case GetElementPtr():
                off = gep_offset(value, seeds, {} if memo is None else memo)
                if off is None or off[1] != 0:
                    break
                total += off[0]
                value = value.ptr
            case Cast(opcode="bitcast" | "addrspacecast"):
                value = value.value
            case _:
                break
    return value, total


_MAX_CHOICES = 4
"""Constant choices of a GEP index (`select c, 24, 16`) followed one by one."""


def gep_choices(gep: GetElementPtr, seeds: TypeSeeds) -> list[int] | None:
    """The byte offsets `gep` may add when its one variable index is a select or phi
    of a few integer constants (`&node->child[c]`, `select c, 24, 16`: the left or
    the right child of a tree node), else None. Following each choice keeps the two
    fields apart, where a period (their gcd, 8) would fold every field of the object
    into one."""
    variable = [i for i, idx in enumerate(gep.indices) if not isinstance(idx, ConstantInt)]
    if len(variable) != 1 or isinstance(gep.type, VectorType):
        return None
    idx = gep.indices[variable[0]]
    match idx:
        case Select():
            values = [idx.true_value, idx.false_value]
        case Phi():
            values = [v for v, _ in idx.incoming]
        case _:
            return None
    if len(values) > _MAX_CHOICES or not all(isinstance(v, ConstantInt) for v in values):
        return None
    fixed = [i.value if isinstance(i, ConstantInt) else 0 for i in gep.indices]
    out = []
    for v in values:
        fixed[variable[0]] = v.value  # type: ignore[attr-defined]
        try:
            out.append(seeds.layout.gep_offset(gep.source_type, fixed))
        except (DataLayoutError, IndexError, TypeError, ValueError):
            return None
    return sorted(set(out))


_TYPE_TOKEN = re.compile(r'\s*(i\d+|half|bfloat|float|double|x86_fp80|fp128|ppc_fp128|ptr(?:\s+addrspace\(\d+\))?'
                         r'|%[-a-zA-Z$._0-9]+|%"[^"]*"|\[|<\{|<|\{|x|\]|\}>|>|\}|,|\d+)')


def parse_type_prefix(text: str, pos: int, named: dict[str, NamedStructType]) -> tuple[Type, int] | None:
    """The IR type spelled at `text[pos:]` and where it ends (None: not understood).

    Constant GEP expressions keep their source type only as text; this reads
    the types they use (integers, floats, `ptr`, arrays, vectors, structs,
    named structs) so their byte offsets can be computed.
    """

    def token(at: int) -> tuple[str, int] | None:
        m = _TYPE_TOKEN.match(text, at)
        return (m.group(1), m.end()) if m else None

    def parse(at: int, depth: int) -> tuple[Type, int] | None:
        tok = token(at)
        if tok is None or depth > 16:
            return None
        t, at = tok
        if t.startswith("i") and t[1:].isdigit():
            return IntType(int(t[1:])), at
        if t in FLOAT_KINDS:
            return FloatType(t), at
        if t.startswith("ptr"):
            m = re.search(r"\((\d+)\)", t)
            return PointerType(int(m.group(1)) if m else 0), at
        if t.startswith("%"):
            name = t[2:-1] if t.startswith('%"') else t[1:]
            return (named[name], at) if name in named else None
        if t in ("[", "<"):
            count = token(at)
            if count is None or not count[0].isdigit():
                return None
            x = token(count[1])
            if x is None or x[0] != "x":
                return None
            inner = parse(x[1], depth + 1)
            close = token(inner[1]) if inner else None
            if inner is None or close is None or close[0] != ("]" if t == "[" else ">"):
                return None
            kind = ArrayType if t == "[" else VectorType
            return kind(int(count[0]), inner[0]), close[1]
        if t in ("{", "<{"):
            elements: list[Type] = []
            end = "}" if t == "{" else "}>"
            nxt = token(at)
            if nxt is not None and nxt[0] == end:
                return StructType((), t == "<{"), nxt[1]
            while True:
                inner = parse(at, depth + 1)
                if inner is None:
                    return None
                elements.append(inner[0])
                sep = token(inner[1])
                if sep is None:
                    return None
                at = sep[1]
                if sep[0] == end:
                    return StructType(tuple(elements), t == "<{"), at
                if sep[0] != ",":
                    return None
        return None

    return parse(pos, 0)


Provenance = tuple[Value, int, int]
"""`(object, c, g)`: a pointer is `object + c + k*g` for some integer k (g = 0: exactly
`object + c`; with g > 0, 0 <= c < g)."""


def pointer_provenance(fn, seeds: TypeSeeds, memo: dict[Value, int]) -> dict[Value, Provenance]:
    """Where each pointer of `fn` points relative to the object it was derived
    from through GEPs, casts, phis and selects.

    Phis and selects of pointers into one object at different offsets (loop
    walks, `max_element`'s "best so far") get a period: the gcd of the
    differences. Computed optimistically (a phi starts from its known inputs)
    to a fixed point; periods only shrink and objects only widen to the phi
    itself, so it terminates.
    """
    insts = [i for b in fn.blocks for i in b.instructions
             if isinstance(i.type, PointerType) and isinstance(i, (GetElementPtr, Cast, Phi, Select))]
    prov: dict[Value, Provenance] = {}

    def of(v: Value) -> Provenance | None:
        if v in prov:
            return prov[v]
        if isinstance(v, (Phi, Select, GetElementPtr, Cast)) and v in pending:
            return None  # not computed yet (optimistic start)
        return (v, 0, 0)

    pending = set(insts)
    changed = True
    rounds = 0
    while changed and rounds < 64:
        changed = False
        rounds += 1
        for inst in insts:
            new = _provenance_step(inst, of, seeds, memo)
            if new is not None and prov.get(inst) != new:
                prov[inst] = new
                pending.discard(inst)
                changed = True
    return prov


def _provenance_step(inst, of, seeds: TypeSeeds, memo: dict[Value, int]) -> Provenance | None:
    match inst:
        case GetElementPtr():
            off = gep_offset(inst, seeds, memo)
            base = of(inst.ptr)
            if off is None or base is None:
                return (inst, 0, 0) if off is None else None
            return _norm(base[0], base[1] + off[0], gcd(base[2], off[1]))
        case Cast(opcode="bitcast" | "addrspacecast"):
            return of(inst.value)
        case Cast():
            return (inst, 0, 0)
        case Phi() | Select():
            values = [v for v, _ in inst.incoming] if isinstance(inst, Phi) else [inst.true_value, inst.false_value]
            known = [p for p in (of(v) for v in values if not _is_null_like(v)) if p is not None]
            if not known:
                return None
            # An input that is this phi moved by c (a loop step) only adds a period.
            steps = [gcd(g, c) for o, c, g in known if o is inst]
            others = [p for p in known if p[0] is not inst]
            period = 0
            for step in steps:
                period = gcd(period, step)
            if not others:
                return (inst, 0, period)
            obj, c0, g = others[0]
            for o, c, gi in others[1:]:
                if o is not obj:
                    return (inst, 0, period)
                g = gcd(g, gi, c - c0)
            return _norm(obj, c0, gcd(g, period))
    return None


def length_multiple(length: Value, provenance: dict[Value, Provenance]) -> int:
    """A number the byte count `length` of a copy is always a multiple of: what
    `multiple_of` finds, or, for `end - begin` (two pointers' addresses
    subtracted: `std::vector` copies its elements with `memmove(new, begin, end -
    begin)`), what both pointers' provenance says of their distance. C and C++
    subtract pointers into one object only, so two pointers derived from one
    object through steps of S bytes are a multiple of S apart; pointers of
    different objects say nothing."""
    return _lcm(multiple_of(length), _distance_multiple(length, provenance))


def _distance_multiple(length: Value, provenance: dict[Value, Provenance]) -> int:
    """For `ptrtoint %end - ptrtoint %begin` of pointers into one object, a number
    their distance is a multiple of; 1 otherwise."""
    if not (isinstance(length, BinaryOp) and length.opcode == "sub"):
        return 1
    end, begin = (_address_of(op) for op in (length.lhs, length.rhs))
    if end is None or begin is None:
        return 1
    end_obj, end_c, end_g = provenance.get(end, (end, 0, 0))
    begin_obj, begin_c, begin_g = provenance.get(begin, (begin, 0, 0))
    return gcd(end_g, begin_g, end_c - begin_c) if end_obj is begin_obj else 1


def rebased_addresses(gep: GetElementPtr) -> list[Value] | None:
    """The pointers X may be for `getelementptr i8, ptr %b, (X - ptrtoint %b)`, X
    the address of a pointer (`ptrtoint %x`, or a phi or select of such addresses,
    0 for null): X itself, moved back from the start of its buffer (`std::vector`
    turns an iterator into `begin + (pos - begin)`); None for any other GEP."""
    if len(gep.indices) != 1 or not (isinstance(gep.source_type, IntType) and gep.source_type.bits == 8):
        return None
    offset = gep.indices[0]
    if not (isinstance(offset, BinaryOp) and offset.opcode == "sub") or _address_of(offset.rhs) is not gep.ptr:
        return None
    return _addresses(offset.lhs, set())


def _addresses(v: Value, seen: set[int]) -> list[Value] | None:
    """The pointers integer `v` may be the address of (null for 0), or None."""
    if id(v) in seen:
        return []
    seen.add(id(v))
    if (pointer := _address_of(v)) is not None:
        return [pointer]
    if isinstance(v, ConstantInt) and v.value == 0:
        return []
    choices = [x for x, _ in v.incoming] if isinstance(v, Phi) else \
        [v.true_value, v.false_value] if isinstance(v, Select) else None
    if choices is None or len(seen) > 16:
        return None
    found: list[Value] = []
    for choice in choices:
        more = _addresses(choice, seen)
        if more is None:
            return None
        found += more
    return found


def _address_of(v: Value) -> Value | None:
    """The pointer `ptrtoint %p` converts, else None."""
    return v.value if isinstance(v, Cast) and v.opcode == "ptrtoint" else None


def _is_null_like(v: Value) -> bool:
    """null/undef/poison point at no object: they do not decide a phi's object."""
    return (isinstance(v, ConstantSimple) and v.keyword in ("null", "undef", "poison")) or _is_fixed_address(v)


def _is_fixed_address(v: Value) -> bool:
    """`inttoptr (i64 48 to ptr)`: a constant address, no object (what `&begin[3]`
    becomes on the path where an empty `std::vector`'s `begin` is null)."""
    return isinstance(v, ConstantExpr) and v.opcode == "inttoptr" and all(
        isinstance(op, ConstantInt) for op in v.operands)


def _norm(obj: Value, c: int, g: int) -> Provenance:
    return (obj, c % g if g else c, g)
