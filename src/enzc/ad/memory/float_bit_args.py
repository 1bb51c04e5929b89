"""Float bits passed to a call as an integer, given back their float type.

Type punning through `memcpy` or a union hands a callee the bits of a double as an
integer:

    %bits = bitcast double %x to i64
    %p = call ptr @store_bits(i64 %bits, i64 3)     ; stores %bits into a heap block

Nothing in `%bits` tells the derivative that it is a float, so its adjoint cannot
follow it into the callee. When `%x` is active and the callee is defined, the call
is redirected to a private clone of the callee whose parameter is the float itself
and whose body starts by taking its bits:

    define internal ptr @store_bits.enzc_float_bits.0(double %0, i64 %1)
      %bits = bitcast double %0 to i64                ; then the original body

The clone computes exactly what the original did; the float now enters it as a
float, and inside it the integer moves of those bits are typed like any other
(`intfloat`: a store of the bits of a double is a store of the double).
"""

from __future__ import annotations

import re

from enzc.ir.instructions import CallBase, Cast
from enzc.ir.local_names import fresh_local_name
from enzc.ir.module import Function, Module
from enzc.ir.transforms import clone_into, clone_subprogram
from enzc.ir.types import FloatType, FunctionType, IntType, Type
from enzc.ir.values import Value

_SUFFIX = ".enzc_float_bits"
_KEPT_PARAM_ATTRS = ("noundef",)
"""The parameter attributes that still hold when an integer parameter becomes a float
(`signext`, `range(...)` and friends are integer-only)."""


def pass_float_bits_as_floats(module: Module, fn: Function, varied) -> bool:
    """Redirect each call in `fn` that passes the bits of a varied float (one of
    `varied`) to a defined callee to the callee's float-typed clone; returns whether
    anything changed."""
    changed = False
    for call in [i for i in fn.instructions() if isinstance(i, CallBase)]:
        positions = _float_bit_positions(call, varied)
        if positions:
            _redirect(module, call, positions)
            changed = True
    return changed


def _float_bit_positions(call: CallBase, varied) -> tuple[int, ...]:
    """The fixed-parameter positions of `call` that receive `bitcast <float> to iN`
    of a varied value, when its callee is a definition of the call's own type."""
    callee = call.called_function
    if (callee is None or callee.is_declaration or callee.function_type != call.function_type
            or (callee.name or "").startswith("llvm.")):
        return ()
    fixed = len(call.function_type.params)
    return tuple(k for k, arg in enumerate(call.args[:fixed])
                 if _float_bits_of(arg) is not None and _float_bits_of(arg) in varied)


def _float_bits_of(v: Value) -> Value | None:
    """`%x` when `v` is `bitcast <float type> %x to <integer type>`."""
    if isinstance(v, Cast) and v.opcode == "bitcast" and isinstance(v.type, IntType) \
            and isinstance(v.operand(0).type, FloatType):
        return v.operand(0)
    return None


def _redirect(module: Module, call: CallBase, positions: tuple[int, ...]) -> None:
    floats = {k: _float_bits_of(call.args[k]) for k in positions}
    clone = _float_clone(module, call.called_function, {k: f.type for k, f in floats.items()})  # type: ignore
    for k, f in floats.items():
        old = call.args[k]
        call.set_operand(k, f)
        call.arg_attrs[k] = tuple(a for a in call.arg_attrs[k] if a in _KEPT_PARAM_ATTRS)
        if isinstance(old, Cast) and not old.uses:
            old.erase()
    call.function_type = clone.function_type
    call.set_operand(len(call.operands) - 1, clone)


def _float_clone(module: Module, callee: Function, float_params: dict[int, Type]) -> Function:
    """The internal clone of `callee` taking the float types `float_params` where it
    takes their bits (one per callee and set of positions, shared by every caller)."""
    name = f"{callee.name}{_SUFFIX}." + ".".join(f"{k}{re.sub('[^0-9A-Za-z]', '', str(t))}"
                                                 for k, t in sorted(float_params.items()))
    existing = module.get_function(name)
    if existing is not None:
        return existing
    params = tuple(float_params.get(k, t) for k, t in enumerate(callee.function_type.params))
    clone = module.add_function(name, FunctionType(callee.function_type.ret, params,
                                                   callee.function_type.vararg), unique=False)
    clone.linkage.words = ["internal"]
    clone.cconv, clone.ret_attrs, clone.fn_attrs = callee.cconv, callee.ret_attrs, callee.fn_attrs
    clone.metadata = dict(callee.metadata)
    clone.blocks = []
    value_map: dict = {}
    bit_casts = []
    for old, new in zip(callee.args, clone.args):
        new.name = old.name
        if old.index in float_params:
            new.attrs = tuple(a for a in old.attrs if a in _KEPT_PARAM_ATTRS)
            cast = Cast("bitcast", new, old.type)
            bit_casts.append((cast, f"{old.name}.bits" if old.name else None))
            value_map[old] = cast
        else:
            new.attrs = old.attrs
            value_map[old] = new
    clone_into(callee, clone, value_map)
    first = clone.entry.instructions[0]
    for cast, cast_name in bit_casts:
        cast.insert_before(first)
        if cast_name:
            cast.name = fresh_local_name(clone, cast_name)
    clone_subprogram(module, clone)
    return clone
