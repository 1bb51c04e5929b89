"""Float bits passed to or returned from a call as an integer, given back their type.

Type punning through `memcpy` or a union hands a callee the bits of a double as an
integer:

    %bits = bitcast double %x to i64
    %p = call ptr @store_bits(i64 %bits, i64 3)     ; stores %bits into a heap block

Nothing in `%bits` tells the derivative that it is a float, so its adjoint cannot
follow it into the callee. When `%x` is active and the callee is defined, the call
is redirected to a private clone of the callee whose parameter is the float itself
and whose body starts by taking its bits:

    define internal ptr @store_bits.enzc_float_bits.0double(double %0, i64 %1)
      %.bits = bitcast double %0 to i64                ; then the original body

Likewise a callee whose every `ret` returns the bits of one float type
(`memcpy(&bits, &y, 8); return bits;`) gets a clone returning the float, and the
caller takes the bits of the call's result. The clones compute exactly what the
original does; the floats now cross the call as floats, and on either side the
integer moves of their bits are typed like any other (`intfloat`: a store of the
bits of a double is a store of the double).
"""

from __future__ import annotations

import re

from enzc.ir.instructions import CallBase, Cast, Invoke, Ret
from enzc.ir.local_names import fresh_local_name
from enzc.ir.module import Function, Module
from enzc.ir.transforms import clone_into, clone_subprogram
from enzc.ir.types import FloatType, FunctionType, IntType, Type
from enzc.ir.values import Value

_SUFFIX = ".enzc_float_bits"
_KEPT_ATTRS = ("noundef",)
"""The parameter/return attributes that still hold when an integer becomes a float
(`signext`, `range(...)` and friends are integer-only)."""


def pass_float_bits_as_floats(module: Module, fn: Function, varied) -> bool:
    """Redirect each call in `fn` that passes the bits of a varied float (one of
    `varied`) to a defined callee, or that receives the bits of a float from one,
    to the callee's float-typed clone; returns whether anything changed."""
    changed = False
    for call in [i for i in fn.instructions() if isinstance(i, CallBase)]:
        callee = call.called_function
        if (callee is None or callee.is_declaration or callee.function_type != call.function_type
                or (callee.name or "").startswith("llvm.")):
            continue
        positions = _float_bit_positions(call, varied)
        returned = _returned_float_type(callee)
        if positions or returned is not None:
            _redirect(module, call, callee, positions, returned)
            changed = True
    return changed


def _float_bit_positions(call: CallBase, varied) -> tuple[int, ...]:
    """The fixed-parameter positions of `call` that receive `bitcast <float> to iN`
    of a varied value."""
    fixed = len(call.function_type.params)
    return tuple(k for k, arg in enumerate(call.args[:fixed])
                 if (f := _float_bits_of(arg)) is not None and f in varied)


def _returned_float_type(callee: Function) -> Type | None:
    """The float type whose bits every `ret` of `callee` returns, if there is one."""
    if not isinstance(callee.function_type.ret, IntType):
        return None
    rets = [b.terminator for b in callee.blocks if isinstance(b.terminator, Ret)]
    floats = {f.type for r in rets if (f := _float_bits_of(r.value)) is not None}
    if rets and len(floats) == 1 and all(_float_bits_of(r.value) is not None for r in rets):
        return floats.pop()
    return None


def _float_bits_of(v: Value | None) -> Value | None:
    """`%x` when `v` is `bitcast <float type> %x to <integer type>`."""
    if isinstance(v, Cast) and v.opcode == "bitcast" and isinstance(v.type, IntType) \
            and isinstance(v.operand(0).type, FloatType):
        return v.operand(0)
    return None


def _redirect(module: Module, call: CallBase, callee: Function, positions: tuple[int, ...],
              returned: Type | None) -> None:
    floats = {k: _float_bits_of(call.args[k]) for k in positions}
    clone = _float_clone(module, callee, {k: f.type for k, f in floats.items()}, returned)  # type: ignore
    for k, f in floats.items():
        old = call.args[k]
        call.set_operand(k, f)
        call.arg_attrs[k] = tuple(a for a in call.arg_attrs[k] if a in _KEPT_ATTRS)
        if isinstance(old, Cast) and not old.uses:
            old.erase()
    call.function_type = clone.function_type
    call.set_operand(len(call.operands) - 1, clone)
    if returned is not None:
        _take_bits_of_result(call, callee.function_type.ret)


def _take_bits_of_result(call: CallBase, int_type: Type) -> None:
    """The call now returns a float: its users get the float's bits, as before."""
    call.ret_attrs = tuple(a for a in call.ret_attrs if a in _KEPT_ATTRS)
    users = list(call.uses)
    bits = Cast("bitcast", call, int_type)
    call.type = call.function_type.ret
    if isinstance(call, Invoke):  # its result is defined in its (dedicated) normal successor
        bits.insert_before(call.normal_dest.first_non_phi)
    else:
        bits.insert_before(call.parent.instructions[call.parent.instructions.index(call) + 1])
    for use in users:
        use.user.set_operand(use.index, bits)
    bits.name = fresh_local_name(call.parent.parent, f"{call.name or 'call'}.bits")
    _fold_round_trips(bits)


def _fold_round_trips(bits: Cast) -> None:
    """Users of `bits` that cast them back to the float they are the bits of use the
    float itself (`bitcast (bitcast double %x to i64) to double` is `%x`)."""
    for use in list(bits.uses):
        user = use.user
        if isinstance(user, Cast) and user.opcode == "bitcast" and user.type == bits.operand(0).type:
            user.replace_all_uses_with(bits.operand(0))
            user.erase()


def _float_clone(module: Module, callee: Function, float_params: dict[int, Type],
                 returned: Type | None) -> Function:
    """The internal clone of `callee` taking the float types `float_params` where it
    takes their bits, and returning `returned` where it returns its bits (one per
    callee and signature, shared by every caller)."""
    parts = [f"{k}{_mangle(t)}" for k, t in sorted(float_params.items())]
    if returned is not None:
        parts.append(f"ret{_mangle(returned)}")
    name = f"{callee.name}{_SUFFIX}." + ".".join(parts)
    existing = module.get_function(name)
    if existing is not None:
        return existing
    old_type = callee.function_type
    params = tuple(float_params.get(k, t) for k, t in enumerate(old_type.params))
    clone = module.add_function(name, FunctionType(returned or old_type.ret, params, old_type.vararg),
                                unique=False)
    clone.linkage.words = ["internal"]
    clone.cconv, clone.fn_attrs = callee.cconv, callee.fn_attrs
    clone.ret_attrs = callee.ret_attrs if returned is None else tuple(a for a in callee.ret_attrs
                                                                      if a in _KEPT_ATTRS)
    clone.metadata = dict(callee.metadata)
    clone.blocks = []
    value_map: dict = {}
    bit_casts = []
    for old, new in zip(callee.args, clone.args):
        new.name = old.name
        if old.index in float_params:
            new.attrs = tuple(a for a in old.attrs if a in _KEPT_ATTRS)
            cast = Cast("bitcast", new, old.type)
            bit_casts.append((cast, f"{old.name or ''}.bits"))
            value_map[old] = cast
        else:
            new.attrs = old.attrs
            value_map[old] = new
    clone_into(callee, clone, value_map)
    first = clone.entry.instructions[0]
    for cast, cast_name in bit_casts:
        cast.insert_before(first)
        cast.name = fresh_local_name(clone, cast_name)
        _fold_round_trips(cast)
    if returned is not None:
        for block in clone.blocks:
            ret = block.terminator
            if isinstance(ret, Ret):
                ret.set_operand(0, _float_bits_of(ret.value))  # type: ignore[arg-type]
    clone_subprogram(module, clone)
    return clone


def _mangle(t: Type) -> str:
    return re.sub("[^0-9A-Za-z]", "", str(t))
