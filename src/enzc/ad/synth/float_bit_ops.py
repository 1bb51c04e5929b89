"""Sign-bit operations on the integer bits of floats, as float operations, in a copy
being differentiated.

SIMD code flips, clears and sets signs with bitwise operations: Eigen's 4x4
inverse (`Eigen/src/LU/arch/InverseSize4.h`) negates lanes with `_mm_xor_pd(v,
sign_mask)`, which clang keeps as

    %bits = bitcast <2 x double> %v to <2 x i64>
    %both = shufflevector <2 x i64> %bits, <2 x i64> poison, <2 x i32> zeroinitializer
    %flip = xor <2 x i64> %both, <i64 0, i64 -9223372036854775808>
    %neg  = bitcast <2 x i64> %flip to <2 x double>

(InstCombine folds the scalar forms to `fneg`/`fabs`, not these.) The engine would
see active float bits carried through integer arithmetic. Where every step between
the two bitcasts moves whole lanes (`shufflevector`, `extractelement` of one) or changes only sign bits
with a constant (`xor` with the sign bit: negate the lane; `and` with all other
bits: its absolute value; `or` with the sign bit: minus its absolute value; an
all-zero `xor`/`or` or all-ones `and` lane: unchanged), and every path ends in a
bitcast back to floats of the same width, the steps become `shufflevector`s of
floats and per-lane `fneg`/`fabs` choices: the same bits, and a derivative the
engine knows. Anything else stays integer arithmetic on float bits, which
`memory/intfloat.py` rejects where it may carry a derivative.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, get_or_insert_function
from enzc.ir.instructions import BinaryOp, Cast, ExtractElement, Instruction, ShuffleVector
from enzc.ir.module import Function, Module
from enzc.ir.types import FloatType, FunctionType, IntType, Type, VectorType
from enzc.ir.values import Constant, ConstantAggregate, ConstantInt, ConstantSplat, Value

from enzc.ad.rules.dsl import type_suffix


def lower_float_bit_ops(module: Module, fn: Function) -> None:
    """Rewrite each region of sign-bit operations in `fn` that starts at a bitcast of
    floats to integers and ends in bitcasts back."""
    _regroup_lanes(fn)
    for inst in list(fn.instructions()):
        if inst.parent is not None and _floats_to_bits(inst):
            region = _region(inst)
            if region is not None:
                _rewrite(module, inst, region)


def _regroup_lanes(fn: Function) -> None:
    """`bitcast <4 x double> %v to <2 x i128>`, `extractelement` of a lane, `bitcast`
    of it to `<2 x double>`: the optimizer's way to take half of an AVX vector (Eigen
    with -mavx2). Each such half becomes a `shufflevector` of `%v`'s lanes: the
    same bits, with floats the engine follows."""
    for cast in list(fn.instructions()):
        if cast.parent is None or not _wide_lanes(cast):
            continue
        floats = cast.operand(0)
        per = cast.type.element.bits // _lanes(floats.type, FloatType)[1]  # type: ignore[attr-defined,index]
        for use in list(cast.uses):
            pick = use.user
            for back in list(pick.users):
                b = IRBuilder()
                b.position_before(back)
                first = pick.index.value * per  # type: ignore[attr-defined]
                poison = IRBuilder.const_poison(floats.type)
                back.replace_all_uses_with(b.shuffle_vector(floats, poison, list(range(first, first + per)), "lanes"))
                back.erase()
            pick.erase()
        cast.erase()


def _wide_lanes(cast: Instruction) -> bool:
    """A bitcast of a float vector to integers of whole groups of its lanes, used only
    by constant-lane extracts used only by bitcasts back to that float type."""
    if not (isinstance(cast, Cast) and cast.opcode == "bitcast" and isinstance(cast.type, VectorType)):
        return False
    source, target = _lanes(cast.operand(0).type, FloatType), _lanes(cast.type, IntType)
    if source is None or target is None or not source[0] or target[1] % source[1] or target[1] == source[1]:
        return False
    want = VectorType(target[1] // source[1], cast.operand(0).type.element)  # type: ignore[attr-defined]
    return bool(cast.uses) and all(
        isinstance(u.user, ExtractElement) and isinstance(u.user.index, ConstantInt) and u.user.uses
        and all(isinstance(v.user, Cast) and v.user.opcode == "bitcast" and v.user.type == want
                for v in u.user.uses)
        for u in cast.uses)


def _floats_to_bits(inst: Instruction) -> bool:
    if not (isinstance(inst, Cast) and inst.opcode == "bitcast"):
        return False
    source, target = inst.operand(0).type, inst.type
    return _lanes(source, FloatType) is not None and _lanes(target, IntType) is not None \
        and _lanes(source, FloatType) == _lanes(target, IntType)


def _lanes(t: Type, kind: type) -> tuple[int, int] | None:
    """(lane count, lane bits) of a scalar or vector of `kind` (0 lanes: a scalar)."""
    element, count = (t.element, t.count) if isinstance(t, VectorType) else (t, 0)
    if not isinstance(element, kind):
        return None
    bits = element.bits if isinstance(element, IntType) else {"float": 32, "double": 64}.get(element.kind)
    return (count, bits) if bits is not None else None


def _region(start: Instruction) -> list[Instruction] | None:
    """The steps from `start` to its bitcasts back, in order of discovery, or None
    when some use of the bits does anything else."""
    width = _lanes(start.type, IntType)[1]  # type: ignore[index]
    region: list[Instruction] = [start]
    inside = {id(start)}
    work = [start]
    while work:
        value = work.pop()
        for user in value.users:
            if id(user) in inside:
                continue
            if isinstance(user, Cast) and user.opcode == "bitcast" and _lanes(user.type, FloatType) is not None \
                    and _lanes(user.type, FloatType)[1] == width:  # type: ignore[index]
                pass  # a way back to floats
            elif isinstance(user, ShuffleVector) and all(id(o) in inside or _poison(o) for o in user.operands[:2]):
                work.append(user)
            elif isinstance(user, ExtractElement) and id(user.vector) in inside and isinstance(user.index, ConstantInt):
                work.append(user)  # one lane's bits
            elif isinstance(user, BinaryOp) and _sign_masks(user, inside, width) is not None:
                work.append(user)
            else:
                return None
            inside.add(id(user))
            region.append(user)
    return region if len(region) > 1 else None


def _poison(v: Value) -> bool:
    return isinstance(v, Constant) and v.ref() in ("poison", "undef")


_XOR, _AND, _OR = "xor", "and", "or"


def _sign_masks(op: BinaryOp, inside: set[int], width: int) -> list[str] | None:
    """Per lane, what `op` does to a float: "keep", "neg", "abs" or "negabs"; None
    when it is not a sign-bit operation on bits of the region with a constant."""
    if op.opcode not in (_XOR, _AND, _OR):
        return None
    bits, mask = op.lhs, op.rhs
    if id(bits) not in inside:
        bits, mask = mask, bits
    if id(bits) not in inside or not isinstance(mask, Constant):
        return None
    values = _lane_values(mask, op.type)
    if values is None:
        return None
    sign, everything = 1 << (width - 1), (1 << width) - 1
    table = {(_XOR, 0): "keep", (_XOR, sign): "neg", (_AND, everything): "keep", (_AND, everything ^ sign): "abs",
             (_OR, 0): "keep", (_OR, sign): "negabs"}
    actions = ["keep" if v is None else table.get((op.opcode, v & everything)) for v in values]  # poison lane
    return None if None in actions else actions  # type: ignore[return-value]


def _lane_values(c: Constant, t: Type) -> list[int | None] | None:
    """The mask's value in each lane (None: poison, any value will do)."""
    count = t.count if isinstance(t, VectorType) else 0
    match c:
        case ConstantInt():
            return [c.value] * max(count, 1)
        case ConstantSplat(element=ConstantInt() as v):
            return [v.value] * count
        case ConstantAggregate() if all(isinstance(e, ConstantInt) or _poison(e) for e in c.elements):
            return [e.value if isinstance(e, ConstantInt) else None for e in c.elements]
    if c.ref() == "zeroinitializer":
        return [0] * max(count, 1)
    return None


def _rewrite(module: Module, start: Instruction, region: list[Instruction]) -> None:
    """Each step of `region` as the float operation it is; the bitcasts back become
    the float values, and the integer steps go."""
    float_type = start.operand(0).type
    floats: dict[int, Value] = {id(start): start.operand(0)}
    width = _lanes(start.type, IntType)[1]  # type: ignore[index]
    for step in region[1:]:
        b = IRBuilder()
        b.position_before(step)
        if isinstance(step, Cast):
            source = floats[id(step.operand(0))]
            step.replace_all_uses_with(source if source.type == step.type else b.bitcast(source, step.type, "bits"))
            continue
        if isinstance(step, ShuffleVector):
            a, c = (floats[id(o)] if id(o) in floats else _poison_like(o, float_type) for o in step.operands[:2])
            floats[id(step)] = b.shuffle_vector(a, c, step.mask, "lanes")
            continue
        if isinstance(step, ExtractElement):
            floats[id(step)] = b.extract_element(floats[id(step.vector)], step.index, "lane")
            continue
        assert isinstance(step, BinaryOp)
        inside = set(floats)
        actions = _sign_masks(step, inside, width)
        assert actions is not None
        operand = step.lhs if id(step.lhs) in inside else step.rhs
        floats[id(step)] = _apply(module, b, floats[id(operand)], actions)
    for step in reversed(region):
        if not step.uses:
            step.erase()


def _poison_like(v: Value, float_type: Type) -> Value:
    """A poison shuffle operand (a vector of integers) as floats of the region's kind."""
    assert isinstance(v.type, VectorType) and isinstance(float_type, VectorType)
    return IRBuilder.const_poison(VectorType(v.type.count, float_type.element))


def _apply(module: Module, b: IRBuilder, x: Value, actions: list[str]) -> Value:
    """Each lane of `x` negated, made absolute, both, or kept, as `actions` says."""
    if all(a == "keep" for a in actions):
        return x
    t = x.type
    fabs = get_or_insert_function(module, f"llvm.fabs.{type_suffix(t)}", FunctionType(t, (t,)))
    options = {"keep": x}
    if "abs" in actions or "negabs" in actions:
        options["abs"] = b.call(fabs, [x], "sign.abs")
    if "neg" in actions:
        options["neg"] = b.fneg(x, "sign.neg")
    if "negabs" in actions:
        options["negabs"] = b.fneg(options["abs"], "sign.negabs")
    if not isinstance(t, VectorType):
        return options[actions[0]]
    result = options[actions[0]]
    for lane, action in enumerate(actions):  # pick each lane from its option
        if action != actions[0]:
            result = b.insert_element(result, b.extract_element(options[action], lane, "sign.lane"), lane, "sign")
    return result
