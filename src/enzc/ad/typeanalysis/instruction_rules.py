"""Propagation rules of type analysis, one per instruction kind.

Each rule reads the current trees of an instruction's operands and result and
joins what follows into them, in both directions: forward (operands → result)
and backward (result → operands: a value loaded as a double means the memory
held a double). Rules are looked up by instruction class, then by opcode.
Calls live in `call_rules`.
"""

from __future__ import annotations

from math import gcd
from typing import Callable

from enzc.ir.instructions import Alloca, AtomicRMW, BinaryOp, CallBase, Cast, CmpXchg, Compare, ExtractElement
from enzc.ir.instructions import ExtractValue, Freeze, GetElementPtr, InsertElement, InsertValue, Instruction, Load, Phi
from enzc.ir.instructions import Ret, Select, ShuffleVector, Store, Switch
from enzc.ir.types import I8, FloatType, IntType, PointerType, VectorType
from enzc.ir.values import Constant, ConstantInt, ConstantSplat, Value

from enzc.ad.typeanalysis.array_regions import elements_reached, field_array
from enzc.ad.typeanalysis.call_rules import apply_call
from enzc.ad.typeanalysis.offsets import gep_choices, gep_offset, multiple_of, strip_constant_offsets
from enzc.ad.typeanalysis.state import FunctionState, lanes, to_memory
from enzc.ad.typeanalysis.typetree import INTEGER, POINTER, POINTER_SIZE, BaseType, Kind, TypeTree

_INT = TypeTree.scalar(INTEGER)


def apply_rule(s: FunctionState, inst: Instruction) -> None:
    cls = type(inst)
    rule = _BY_CLASS.get(cls, _MISSING)
    if rule is _MISSING:
        rule = _BY_CLASS[cls] = next((r for base, r in _RULES.items() if issubclass(cls, base)), None)
    if rule is not None:
        rule(s, inst)


_MISSING = object()
_BY_CLASS: dict[type, object] = {}
"""Rule per concrete instruction class (subclasses resolved once)."""


def base_of(tree: TypeTree) -> BaseType:
    """The type of a scalar value's own bytes."""
    return tree.at((0,))


# -- memory ------------------------------------------------------------------------------


def _tbaa_seed(s: FunctionState, inst: Instruction, size: int) -> TypeTree:
    seed = s.rule_seeds.get(inst)
    if seed is None:
        tag = inst.metadata.get("tbaa")
        seed = s.analysis.tbaa.access_tree(tag, size) if tag is not None else TypeTree()
        s.rule_seeds[inst] = seed
    return seed


def _load(s: FunctionState, inst: Load) -> None:
    size = s.size(inst)
    if not size:
        return
    ptr = inst.ptr
    s.update_memory(ptr, _tbaa_seed(s, inst, size))
    s.update(inst, s.memory(ptr, inst).lookup(0, size))
    s.update_memory(ptr, to_memory(s.get(inst), size))


def _store(s: FunctionState, inst: Store) -> None:
    value, ptr = inst.value, inst.ptr
    size = s.size(value)
    if not size:
        return
    s.update_memory(ptr, _tbaa_seed(s, inst, size))
    step = _stored_step(s, value, ptr)
    if step:
        # `*slot = *slot + c`: a pointer walking an array through memory (va_arg,
        # iterators); relate old and new modulo the step, as for a phi.
        tree = s.get_from(value, inst)
        folded = TypeTree.pointer_to(tree.data0().periodic(0, step))
        s.update_memory(ptr, to_memory(folded, size))
        s.update(value, TypeTree.pointer_to(s.memory(ptr, inst).lookup(0, size).data0().periodic(0, step)))
        return
    s.update_memory(ptr, to_memory(s.get_from(value, inst), size))
    s.update(value, s.memory(ptr, inst).lookup(0, size))


def _stored_step(s: FunctionState, value: Value, ptr: Value) -> int:
    """|c| when `value` is a pointer loaded from `ptr`'s location moved by c ≠ 0
    (through phis), else 0."""
    if not isinstance(value.type, PointerType):
        return 0
    root, c = constant_offset_base(value, s)
    if c == 0:
        return 0
    slot = constant_offset_base(ptr, s)
    seen: set[Value] = set()
    work = [root]
    while work and len(seen) < 16:
        v = work.pop()
        if v in seen:
            continue
        seen.add(v)
        match v:
            case Load() if constant_offset_base(v.ptr, s) == slot:
                return abs(c)
            case Phi():
                for inc, _ in v.incoming:
                    r, k = constant_offset_base(inc, s)
                    if k == 0:
                        work.append(r)
    return 0


def _atomicrmw(s: FunctionState, inst: AtomicRMW) -> None:
    size = s.size(inst)
    if not size:
        return
    ptr, value = inst.ptr, inst.value
    if inst.operation in ("add", "sub", "and", "nand", "or", "xor", "max", "min", "umax", "umin",
                          "uinc_wrap", "udec_wrap", "usub_cond", "usub_sat"):
        s.update(inst, _INT)
    joined = s.get(inst).join(s.get(value)).join(s.memory(ptr, inst).lookup(0, size))
    s.update(inst, joined)
    s.update(value, joined)
    s.update_memory(ptr, to_memory(joined, size))


def _cmpxchg(s: FunctionState, inst: CmpXchg) -> None:
    ptr, expected, new = inst.operands[0], inst.operands[1], inst.operands[2]
    size = s.size(expected)
    if not size:
        return
    member = s.get(inst).expand(s.size(inst) or size).lookup(0, size)
    joined = s.get(expected).join(s.get(new)).join(s.memory(ptr, inst).lookup(0, size)).join(member)
    s.update(expected, joined)
    s.update(new, joined)
    s.update_memory(ptr, to_memory(joined, size))
    s.update(inst, to_memory(joined, size))


def _alloca(s: FunctionState, inst: Alloca) -> None:
    """A local variable's declared type (`double tmp[4]` stays `[4 x double]` at
    -O2 when it escapes) describes its memory; byte arrays and unions say nothing."""
    if inst.count is not None:
        s.update(inst.count, _INT)
        return
    size = s.seeds.size(inst.allocated_type)
    if size:  # the object is exactly this value: `-1` entries may stay
        s.update_memory(inst, s.seeds.of_type(inst.allocated_type).window(0, size))


def _gep(s: FunctionState, inst: GetElementPtr) -> None:
    for idx in inst.indices:
        if not isinstance(idx, Constant):
            s.update(idx, _INT)
    rebased = _rebased_address(inst)
    if rebased is not None:
        link_offset(s, rebased, inst, 0, 0, inst)
        return
    choices = gep_choices(inst, s.seeds)
    if choices is not None and len(choices) > 1:
        _link_choices(s, inst, inst.ptr, choices)
        return
    off = gep_offset(inst, s.seeds, s.memo)
    if off is None:
        return
    const, period = off
    _link_index(s, inst, inst.ptr, const, period)
    # Also relate to the start of a GEP chain: `a + 8*n - 8` reads a[n-1], which a
    # step-by-step view loses (the intermediate `a + 8*n` has it at offset -8).
    base: Value = inst.ptr
    for _ in range(8):
        if not isinstance(base, GetElementPtr) or len(gep_choices(base, s.seeds) or ()) > 1:
            break  # a choice of offsets relates on its own (`_link_choices`), its period does not start at 0
        inner = gep_offset(base, s.seeds, s.memo)
        if inner is None:
            break
        const, period = const + inner[0], gcd(period, inner[1])
        base = base.ptr
    if base is not inst.ptr:
        _link_index(s, inst, base, const, period)


def _rebased_address(gep: GetElementPtr) -> Value | None:
    """X for `getelementptr i8, ptr %b, (ptrtoint X - ptrtoint %b)`: the address of
    X, moved back from the start of its buffer (`std::vector::insert` computes
    `begin + (pos - begin)`). Relating it to `%b` at an offset of unknown period
    would spread every type of the buffer over every byte."""
    if len(gep.indices) != 1 or gep.source_type != I8:
        return None
    offset = gep.indices[0]
    if not (isinstance(offset, BinaryOp) and offset.opcode == "sub"):
        return None
    x, b = (op.value if isinstance(op, Cast) and op.opcode == "ptrtoint" else None for op in (offset.lhs, offset.rhs))
    return x if x is not None and b is gep.ptr else None


def _link_index(s: FunctionState, gep: GetElementPtr, base: Value, const: int, period: int) -> None:
    """`gep = base + const + k*period`: relate the elements the index may reach
    (`array_regions`); a constant GEP moves by `const`."""
    if period == 0:
        if const > 0:
            _link_field(s, gep, base, const)
        else:
            link_offset(s, base, gep, const, 0, gep)
        return
    count = _elements_reached(s, gep, base, const, period) if period > 1 else None
    if count is None:  # period 1: an unknown number of bytes in, where only what every byte holds is known
        link_offset(s, base, gep, const, period, gep)
    else:
        link_elements(s, base, gep, const, period, count, gep)


def _elements_reached(s: FunctionState, gep: GetElementPtr, base: Value, const: int, period: int) -> int | None:
    key = (gep, base)
    if key not in s.array_extents:
        s.array_extents[key] = elements_reached(gep, base, const, period, s.seeds, s.memo, s.analysis.tbaa)
    return s.array_extents[key]  # type: ignore[return-value]


def _link_field(s: FunctionState, gep: GetElementPtr, base: Value, const: int) -> None:
    """`gep = base + const`, inside `base`'s object. A pointer into an array field of
    a declared type sees that array, not the fields after it, and what it says of
    every element it points into (a `-1` entry: a helper indexes `&t.v[0]`, or walks
    back from `&t.v[4]`) holds for that array's elements, not for the whole object."""
    key = (gep, base)
    if key not in s.array_extents:
        s.array_extents[key] = field_array(base, const, s.seeds, s.memo)
    array: tuple[int, int] | None = s.array_extents[key]  # type: ignore[assignment]
    if array is None:
        link_offset(s, base, gep, const, 0, gep)
        return
    lo, hi = array
    s.update_memory(gep, s.memory(base, gep).shift(-const).window(0, hi))
    memory = s.memory(gep)
    every = TypeTree({p: t for p, t in memory.items() if p[0] == -1})
    stride = max((t.stride for p, t in every.items() if len(p) == 1), default=0)
    back = TypeTree({p: t for p, t in memory.items() if p[0] != -1}).shift(const)
    if stride:
        back = back.join(every.expand(stride).tile(const + lo, stride, (hi - lo) // stride))
    s.update_memory(base, back)


def link_elements(s: FunctionState, base: Value, derived: Value, const: int, period: int, count: int,
                  user: Instruction) -> None:
    """`derived = base + const + k*period` for k < `count`: `derived` points at any
    of those elements and each holds what `derived` points to; what `base` holds
    before or after them is not in them."""
    s.update_memory(derived, s.memory(base, user).window(const, count * period).periodic(0, period))
    element = s.memory(derived).periodic(0, period).expand(period)
    s.update_memory(base, element.tile(const, period, count))


def link_offset(s: FunctionState, base: Value, derived: Value, const: int, period: int,
                user: Instruction) -> None:
    """Relate the pointees of `derived = base + const + k*period`."""
    bm = s.memory(base, user)
    dm = s.memory(derived)
    if period == 0:
        fwd, bwd = bm.shift(-const), dm.shift(const)
    elif period == 1:
        fwd, bwd = lanes(bm), lanes(dm)
    else:
        fwd, bwd = bm.periodic(const, period), dm.periodic(-const, period)
    s.update_memory(derived, fwd)
    s.update_memory(base, bwd)


def _link_choices(s: FunctionState, inst: Instruction, base: Value, choices: list[int],
                  fields_only: bool = False) -> None:
    """`inst = base + c` for c one of a few constants (`&node->child[dir]`, a
    select of two rows of a matrix): what `base` holds at each c is what `inst` may
    point to; what `inst` says goes back to every choice, but only for the bytes
    before the next choice could start (the field it selects). Beyond them,
    `inst`'s facts are the other choices' fields seen at a shifted offset: sending
    them back would smear each field over its neighbours (a tree node's key and
    value over its links). `fields_only`: `inst` sees its field alone too (a row
    the program walks with an index must not see the record's other members)."""
    bm = s.memory(base, inst)
    gap = min(b - a for a, b in zip(choices, choices[1:]))
    for c in choices:
        s.update_memory(inst, bm.shift(-c).window(0, gap) if fields_only else bm.shift(-c))
    field = s.memory(inst).window(0, gap).expand(gap)  # `-1`: every element of the field, not of the object
    for c in choices:
        s.update_memory(base, field.shift(c))


# -- values ------------------------------------------------------------------------------


def _same(s: FunctionState, a: Value, b: Value, user: Instruction) -> None:
    """`a` and `b` hold the same bits: share everything."""
    s.update(a, s.get_from(b, user))
    s.update(b, s.get(a))


def _phi(s: FunctionState, inst: Phi) -> None:
    values = [v for v, _ in inst.incoming]
    if not _choice_of_places(s, inst, values):
        _merge_pointers(s, inst, values)


def _choice_of_places(s: FunctionState, inst: Instruction, values: list[Value]) -> bool:
    """A phi or select of pointers at a few constant offsets of one pointer it is not
    derived from (`c ? &m[1][0] : &m[0][0]`; an unrolled loop's `phi [&r.v[0],
    entry], [&r.v[1], latch]`): each place is a field of its own, related to its
    bytes alone (`_link_choices`), not a walk that would fold the record's other
    members into them. Returns whether it was."""
    if not isinstance(inst.type, PointerType):
        return False
    places = [constant_offset_base(v, s) for v in values]
    base = places[0][0]
    offsets = sorted({c for _, c in places})
    if base is inst or any(b is not base for b, _ in places) or len(offsets) < 2 or offsets[0] < 0:
        return False
    _link_choices(s, inst, base, offsets, fields_only=True)
    return True


def _merge_pointers(s: FunctionState, inst: Instruction, values: list[Value]) -> None:
    """`inst` is one of `values` (a phi or select): it holds what they hold.

    Pointers into one object at offsets that differ by multiples of g (a loop
    walking an array, "best element so far") relate modulo g instead of being
    merged offset by offset, which would grow without bound (the pointee of
    `p` joined with that of `p + 24`, shifted again and again).
    """
    prov = s.provenance()
    mine = prov.get(inst)
    for v in values:
        theirs = prov.get(v, (v, 0, 0))
        if mine is not None and mine[2] and theirs[0] is mine[0]:
            link_offset(s, inst, v, theirs[1] - mine[1], mine[2], inst)
        else:
            _same(s, inst, v, inst)


def constant_offset_base(value: Value, s: FunctionState) -> tuple[Value, int]:
    """`(base, c)` with `value == base + c` (`offsets.strip_constant_offsets`)."""
    return strip_constant_offsets(value, s.seeds, s.memo)


def _select(s: FunctionState, inst: Select) -> None:
    if not isinstance(inst.condition, Constant):
        s.update(inst.condition, _INT)
    values = [inst.true_value, inst.false_value]
    if not _choice_of_places(s, inst, values):
        _merge_pointers(s, inst, values)


def _freeze(s: FunctionState, inst: Freeze) -> None:
    _same(s, inst, inst.value, inst)


def _cast(s: FunctionState, inst: Cast) -> None:
    src = inst.value
    match inst.opcode:
        case "bitcast" | "addrspacecast":
            a, b = src.type.scalar, inst.type.scalar
            if isinstance(a, FloatType) and isinstance(b, FloatType) and a != b:
                return
            _same(s, inst, src, inst)
        case "ptrtoint" | "ptrtoaddr" | "inttoptr":
            _same(s, inst, src, inst)
        case "trunc" | "fptosi" | "fptoui":
            s.update(inst, _INT)
        case "zext" | "sext":
            s.update(inst, _INT)
            s.update(src, _INT)
        case "sitofp" | "uitofp":
            s.update(src, _INT)


def _binary(s: FunctionState, inst: BinaryOp) -> None:
    rule = _BINARY.get(inst.opcode)
    if rule is not None:
        rule(s, inst)


def _integer_arith(s: FunctionState, inst: BinaryOp) -> None:
    """mul/div/rem: integers in, integer out (nobody multiplies float bits)."""
    s.update(inst, _INT)
    for op in (inst.lhs, inst.rhs):
        if not isinstance(op, Constant):
            s.update(op, _INT)


def _shift(s: FunctionState, inst: BinaryOp) -> None:
    s.update(inst, _INT)


def _const_int(v: Value) -> int | None:
    if isinstance(v, ConstantInt):
        return v.value
    if isinstance(v, ConstantSplat) and isinstance(v.element, ConstantInt):
        return v.element.value
    return None


def _add_sub(s: FunctionState, inst: BinaryOp) -> None:
    """Integer add/sub, which optimized code also uses for pointer arithmetic."""
    scalar = inst.type.scalar
    if isinstance(scalar, IntType) and scalar.bits < 8 * POINTER_SIZE:
        _integer_arith(s, inst)  # too narrow for an address: integer arithmetic
        return
    a, b = inst.lhs, inst.rhs
    ta, tb = base_of(s.get_from(a, inst)), base_of(s.get_from(b, inst))
    add = inst.opcode == "add"
    if not add and ta.kind is Kind.POINTER and tb.kind is Kind.POINTER:
        s.update(inst, _INT)  # pointer difference
        return
    # pointer ± offset (an offset may stand on either side of an add)
    candidates = [(a, b, ta, tb, 1 if add else -1)] + ([(b, a, tb, ta, 1)] if add else [])
    for ptr, off, t_ptr, t_off, sign in candidates:
        if t_ptr.kind is not Kind.POINTER or t_off.kind not in _OFFSET_KINDS:
            continue
        c = _const_int(off)
        if c is not None:
            link_offset(s, ptr, inst, sign * c, 0, inst)
        else:
            s.update(inst, TypeTree.scalar(POINTER))
            link_offset(s, ptr, inst, 0, multiple_of(off, s.memo), inst)
        return
    if {ta.kind, tb.kind} <= {Kind.INTEGER, Kind.ANYTHING} and Kind.INTEGER in (ta.kind, tb.kind):
        s.update(inst, _INT)


_OFFSET_KINDS = (Kind.INTEGER, Kind.ANYTHING, Kind.UNKNOWN)


def _bitwise(s: FunctionState, inst: BinaryOp) -> None:
    """and/or/xor: with a constant mask the result is what the other operand is
    (sign-bit tricks on floats, alignment masks on pointers); otherwise integers
    stay integers and a pointer tagged with integer bits stays a pointer."""
    a, b = inst.lhs, inst.rhs
    ta, tb = base_of(s.get_from(a, inst)), base_of(s.get_from(b, inst))
    if _const_int(b) is not None or _const_int(a) is not None:
        t = tb if _const_int(a) is not None else ta
        if t.is_concrete:
            s.update(inst, TypeTree.scalar(t))
        return
    joined = ta.join(tb)
    if ta.kind is Kind.INTEGER and tb.kind is Kind.INTEGER:
        s.update(inst, _INT)
    elif joined.kind is Kind.POINTER and Kind.INTEGER in (ta.kind, tb.kind):
        s.update(inst, TypeTree.scalar(POINTER))


def _compare(s: FunctionState, inst: Compare) -> None:
    """`icmp` compares like with like: pointers with pointers, integers with integers."""
    if inst.opcode != "icmp":
        return
    a, b = inst.lhs, inst.rhs
    if isinstance(a, Constant) or isinstance(b, Constant):
        return
    joined = base_of(s.get(a)).join(base_of(s.get(b)))
    if joined.kind in (Kind.INTEGER, Kind.POINTER):
        s.update(a, TypeTree.scalar(joined))
        s.update(b, TypeTree.scalar(joined))


# -- aggregates and vectors --------------------------------------------------------------


def _member_offset(s: FunctionState, agg_type, indices: tuple[int, ...]) -> int | None:
    try:
        return s.seeds.layout.gep_offset(agg_type, [0, *indices])
    except Exception:  # noqa: BLE001 - unsized/opaque aggregate: no facts
        return None


def _extractvalue(s: FunctionState, inst: ExtractValue) -> None:
    agg = inst.aggregate
    off, size, asize = _member_offset(s, agg.type, inst.indices), s.size(inst), s.size(agg)
    if off is None or not size or not asize:
        return
    s.update(inst, s.get_from(agg, inst).expand(asize).lookup(off, size))
    s.update(agg, s.get(inst).expand(size).shift(off))


def _insertvalue(s: FunctionState, inst: InsertValue) -> None:
    agg, value = inst.aggregate, inst.value
    off, size, asize = _member_offset(s, agg.type, inst.indices), s.size(value), s.size(inst)
    if off is None or not size or not asize:
        return
    s.update(inst, s.get_from(agg, inst))
    s.update(inst, s.get_from(value, inst).expand(size).shift(off))
    s.update(agg, s.get(inst))
    s.update(value, s.get(inst).expand(asize).lookup(off, size))


def _lane_size(s: FunctionState, vec_type) -> int | None:
    if not isinstance(vec_type, VectorType) or vec_type.scalable:
        return None
    e = vec_type.element
    if isinstance(e, IntType) and e.bits % 8:
        return None
    return s.seeds.size(e)


def _extractelement(s: FunctionState, inst: ExtractElement) -> None:
    vec, idx = inst.vector, inst.index
    if not isinstance(idx, Constant):
        s.update(idx, _INT)
    e, vsize = _lane_size(s, vec.type), s.size(vec)
    if not e or not vsize:
        return
    k = _const_int(idx)
    if k is not None:
        s.update(inst, s.get_from(vec, inst).expand(vsize).lookup(k * e, e))
        s.update(vec, s.get(inst).expand(e).shift(k * e))
    else:
        s.update(inst, lanes(s.get_from(vec, inst)))
        s.update(vec, lanes(s.get(inst)))


def _insertelement(s: FunctionState, inst: InsertElement) -> None:
    vec, value, idx = inst.vector, inst.value, inst.index
    if not isinstance(idx, Constant):
        s.update(idx, _INT)
    e, vsize = _lane_size(s, inst.type), s.size(inst)
    if not e or not vsize:
        return
    k = _const_int(idx)
    s.update(inst, s.get_from(vec, inst))
    s.update(vec, s.get(inst))
    if k is not None:
        s.update(inst, s.get_from(value, inst).expand(e).shift(k * e))
        s.update(value, s.get(inst).expand(vsize).lookup(k * e, e))
    else:
        s.update(inst, lanes(s.get_from(value, inst)))
        s.update(value, lanes(s.get(inst)))


def _shufflevector(s: FunctionState, inst: ShuffleVector) -> None:
    a, b = inst.operands[0], inst.operands[1]
    s.update(inst, lanes(s.get_from(a, inst)))
    if not isinstance(b, Constant):
        s.update(inst, lanes(s.get_from(b, inst)))
        s.update(b, lanes(s.get(inst)))
    s.update(a, lanes(s.get(inst)))


# -- control -----------------------------------------------------------------------------


def _ret(s: FunctionState, inst: Ret) -> None:
    value = inst.value
    if value is not None:
        s.update_ret(s.get_from(value, inst))
        s.update(value, s.ret_tree)


def _switch(s: FunctionState, inst: Switch) -> None:
    if not isinstance(inst.condition, Constant):
        s.update(inst.condition, _INT)


def _call(s: FunctionState, inst: CallBase) -> None:
    apply_call(s, inst)


_BINARY: dict[str, Callable[[FunctionState, BinaryOp], None]] = {
    "add": _add_sub,
    "sub": _add_sub,
    "mul": _integer_arith,
    "udiv": _integer_arith,
    "sdiv": _integer_arith,
    "urem": _integer_arith,
    "srem": _integer_arith,
    "shl": _shift,
    "lshr": _shift,
    "ashr": _shift,
    "and": _bitwise,
    "or": _bitwise,
    "xor": _bitwise,
}

_RULES: dict[type, Callable] = {
    Load: _load,
    Store: _store,
    AtomicRMW: _atomicrmw,
    CmpXchg: _cmpxchg,
    Alloca: _alloca,
    GetElementPtr: _gep,
    Phi: _phi,
    Select: _select,
    Freeze: _freeze,
    Cast: _cast,
    BinaryOp: _binary,
    Compare: _compare,
    ExtractValue: _extractvalue,
    InsertValue: _insertvalue,
    ExtractElement: _extractelement,
    InsertElement: _insertelement,
    ShuffleVector: _shufflevector,
    Ret: _ret,
    Switch: _switch,
    CallBase: _call,
}
