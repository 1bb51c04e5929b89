"""Calls of functions with a user-supplied derivative (`!enzyme_augment` / `!enzyme_gradient`).

At an active call `r = f(args)` the forward pass calls the augmented function
instead, with each pointer argument followed by its shadow, and takes the primal
result and a tape from what it returns; the reverse pass calls the gradient
function with the same arguments, then the adjoint of `r` (when `f` returns a
float), then the tape, and adds what it returns to the adjoints of `f`'s floating
arguments. The tape is an ordinary forward value, so a call inside a loop gets
one tape per iteration from the engine's cache.

The shapes are read from the functions' types, covering Enzyme's IR convention
(augmented returns `{tape, primal}` as a literal struct, the gradient a struct of
derivatives; a primal that is not a pointer may be left out, and the original call
then stays to compute it) and C's natural ones as clang lowers them (augmented returns the
tape as a pointer for a `void` f, the primal alone when it needs no tape, or a
`{tape, primal}` struct; the reverse returns one derivative as a scalar, several
as a small struct, or nothing). Anything else is a compile-time error naming the
function and what was expected, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import CallBase
from enzc.ir.module import Function, Module
from enzc.ir.types import VOID, FloatType, PointerType, StructType, Type, VectorType
from enzc.ir.values import ConstantSimple, Value

from enzc.ad.analysis.annotations import AUGMENT_KIND, GRADIENT_KIND
from enzc.ad.analysis.calls import CallKind, classify
from enzc.ad.analysis.globals_shadow import metadata_target
from enzc.ad.analysis.gradient_state import GradientState
from enzc.ad.rules.table import has_rule


@dataclass(frozen=True)
class CustomShape:
    """How to call one custom augmented/gradient pair for a function `f`."""

    primal: Function
    augment: Function
    gradient: Function
    shadowed_params: tuple[int, ...]
    """Parameters of `f` followed by their shadow in both calls."""
    tape: int | None
    """Index of the tape in the augmented result struct; -1: the whole result."""
    primal_index: int | None
    """Index of the primal result in the augmented result struct; -1: the whole result."""
    takes_d_return: bool
    derivative_params: tuple[int, ...]
    """Parameters of `f` whose derivatives the gradient returns, in order."""
    derivative_count: int
    """0: returns nothing; 1: a scalar (or a 1-element struct); more: a struct or vector."""

    def augment_result(self, b: IRBuilder, result: Value) -> tuple[Value | None, Value | None]:
        """(tape, primal) from the augmented call's result."""
        def part(i: int | None) -> Value | None:
            if i is None:
                return None
            return result if i == -1 else b.extract_value(result, i, "aug.part")

        return part(self.tape), part(self.primal_index)


def custom_functions(module: Module, fn: Function) -> tuple[Function, Function] | None:
    """The (augmented, gradient) pair the metadata on `fn` names, if both are there."""
    aug, grad = (metadata_target(module, fn.metadata.get(kind)) for kind in (AUGMENT_KIND, GRADIENT_KIND))
    return (aug, grad) if isinstance(aug, Function) and isinstance(grad, Function) else None


def shape_of(gu: GradientState, call: CallBase) -> CustomShape:
    """Read the calling convention from the types of `f`, its augmented and gradient
    functions (see the module docstring); a clear error if they do not fit."""
    f = call.called_function
    assert isinstance(f, Function)
    pair = custom_functions(gu.module, f)
    if pair is None:
        raise gu.error(call, f"the custom derivative of '{f.name}' needs both !enzyme_augment and !enzyme_gradient",
                       "register the augmented forward and the reverse function together")
    aug, grad = pair
    params = list(f.function_type.params)
    ret = f.function_type.ret
    pointers = tuple(i for i, t in enumerate(params) if isinstance(t, PointerType))
    fail = _Failure(gu, call, f, aug, grad)
    n_aug = len(aug.function_type.params)
    if n_aug == len(params) + len(pointers):
        shadowed = pointers
    elif n_aug == len(params):
        shadowed = ()
    else:
        raise fail(f"the augmented function takes {n_aug} parameters; expected {len(params) + len(pointers)} "
                   f"(each parameter of '{f.name}', a shadow after each pointer)")
    expected_aug_params = []
    for i, t in enumerate(params):
        expected_aug_params += [t, t] if i in shadowed else [t]
    if list(aug.function_type.params) != expected_aug_params:
        raise fail("the augmented function's parameter types do not match the function's (with shadows)")
    tape, primal = _augment_result(aug.function_type.ret, ret, fail)
    n_grad = len(grad.function_type.params)
    takes_d = isinstance(ret, FloatType) and n_grad == n_aug + 1 + (tape is not None)
    if n_grad != n_aug + takes_d + (tape is not None):
        want = n_aug + isinstance(ret, FloatType) + (tape is not None)
        raise fail(f"the gradient function takes {n_grad} parameters; expected {want} (the augmented function's, "
                   + ("the adjoint of the result, " if isinstance(ret, FloatType) else "")
                   + ("then the tape" if tape is not None else "no tape: the augmented function returns none") + ")")
    if grad.function_type.params[:n_aug] != aug.function_type.params:
        raise fail("the gradient function's first parameters must be the augmented function's")
    floats = tuple(i for i, t in enumerate(params) if isinstance(t, FloatType))
    count = _derivative_count(grad.function_type.ret)
    if count is None or count not in (0, len(floats)):
        raise fail(f"the gradient function returns {grad.function_type.ret}; expected the derivatives of the "
                   f"{len(floats)} floating-point parameter(s) (a scalar, a struct of them, or void)")
    return CustomShape(f, aug, grad, shadowed, tape, primal, takes_d, floats if count else (), count)


class _Failure:
    def __init__(self, gu: GradientState, call: CallBase, f: Function, aug: Function, grad: Function) -> None:
        self.gu, self.call, self.f, self.aug, self.grad = gu, call, f, aug, grad

    def __call__(self, what: str):
        hint = ("see the custom derivatives section of docs/c-api: augmented(args with shadows) -> "
                "tape / primal / {tape, primal}; reverse(args with shadows, [d_result], [tape]) -> "
                "derivatives of the floating-point arguments")
        if self.f.args and any(a.startswith("sret") for a in self.f.args[0].attrs):
            hint += (f"; '{self.f.name}' returns a struct through a hidden pointer, which both take first, "
                     "with its shadow: aug_f(T *ret, T *d_ret, args...), rev_f(T *ret, T *d_ret, args..., [tape])")
        return self.gu.error(self.call, f"custom derivative of '{self.f.name}' ('{self.aug.name}', "
                                        f"'{self.grad.name}'): {what}", hint)


def _augment_result(aug_ret: Type, f_ret: Type, fail: _Failure) -> tuple[int | None, int | None]:
    """(tape index, primal index) in the augmented result (-1: the whole value)."""
    elements = aug_ret.elements if isinstance(aug_ret, StructType) else None
    if f_ret == VOID:
        if aug_ret == VOID:
            return None, None
        if elements is not None and len(elements) == 1:
            return 0, None
        return -1, None
    if aug_ret == f_ret:
        return None, -1
    if elements is not None and len(elements) == 2 and elements[1] == f_ret:
        return 0, 1
    if not isinstance(f_ret, PointerType):  # Enzyme's rule: the primal is returned only if a pointer
        if aug_ret == VOID:
            return None, None
        if isinstance(aug_ret, PointerType):
            return -1, None
        if elements is not None and len(elements) == 1:
            return 0, None
    raise fail(f"the augmented function returns {aug_ret}; expected {f_ret} (no tape), {{tape, {f_ret}}}, "
               "or (the primal then comes from calling the function itself) void or a tape")


def _derivative_count(t: Type) -> int | None:
    match t:
        case _ if t == VOID:
            return 0
        case FloatType():
            return 1
        case StructType(elements=els) if all(isinstance(e, FloatType) for e in els):
            return len(els)
        case VectorType(element=FloatType(), count=n):
            return n
    return None


# -- forward and reverse ---------------------------------------------------------------------


def forward_custom_call(gu: GradientState, call: CallBase) -> None:
    """Replace the forward clone of active `call` by the augmented call."""
    shape = shape_of(gu, call)
    new_call = gu.new_value(call)
    assert isinstance(new_call, CallBase)
    if new_call.is_terminator:
        raise gu.error(call, f"cannot use the custom derivative of '{shape.primal.name}' at an invoke "
                             "(a call that may throw into a C++ handler)",
                       "compile with -fno-exceptions, or call it where no cleanup is pending")
    b = IRBuilder()
    b.position_before(new_call)
    args: list[Value] = []
    for i, a in enumerate(call.args):
        args.append(gu.new_value(a))
        if i in shape.shadowed_params:
            args.append(_shadow_argument(gu, call, i))
    result = b.call(shape.augment, args, "aug" if shape.augment.function_type.ret != VOID else "")
    tape, primal = shape.augment_result(b, result)
    gu.custom_tapes[call] = tape
    if primal is None and call.type != VOID:
        return  # the augmented function does not return the primal: the original call computes it
    replacement = primal if primal is not None else result
    if new_call.uses:
        new_call.replace_all_uses_with(replacement)
    new_call.erase()
    gu.value_map[call] = replacement
    gu.original_of[replacement] = call


def reverse_custom_call(gu: GradientState, call: CallBase) -> None:
    """At the call's place in the reverse pass: call the gradient function and add
    its derivatives to the adjoints of the arguments."""
    shape = shape_of(gu, call)
    b = gu.b
    args: list[Value] = []
    for i, a in enumerate(call.args):
        args.append(gu.lookup(gu.new_value(a)))
        if i in shape.shadowed_params:
            args.append(gu.lookup(_shadow_argument(gu, call, i)))
    if shape.takes_d_return:
        args.append(gu.take_adjoint(call) if gu.has_adjoint(call) else b.const_zero(call.type))
    tape = gu.custom_tapes.get(call)
    if shape.tape is not None:
        assert tape is not None
        tape_type = tape.type
        empty = isinstance(tape_type, StructType) and not tape_type.elements
        args.append(b.const_zero(tape_type) if empty else gu.lookup(tape))
    result = b.call(shape.gradient, args, "custom.grad" if shape.derivative_count else "")
    for k, i in enumerate(shape.derivative_params):
        arg = call.args[i]
        if not gu.has_adjoint(arg):
            continue
        match shape.gradient.function_type.ret:
            case StructType():
                d = b.extract_value(result, k, "d.custom")
            case VectorType():
                d = b.extract_element(result, k, "d.custom")
            case _:
                d = result
        if d.type != arg.type:
            d = b.fpext(d, arg.type, "d.custom") if arg.type.bits > d.type.bits else b.fptrunc(d, arg.type, "d.custom")  # type: ignore[attr-defined]
        gu.add_adjoint(arg, d)


def _shadow_argument(gu: GradientState, call: CallBase, i: int) -> Value:
    a = call.args[i]
    if not gu.activity.has_shadow(a) and not isinstance(a, ConstantSimple):
        f = call.called_function
        raise gu.error(call, f"argument {i + 1} of the call to '{f.name if f else '?'}' has no shadow, but its "
                             "custom derivative takes one",
                       "pass memory the derivative can use (an enzyme_dup argument or a local buffer), or "
                       "register a derivative without shadow parameters")
    return gu.shadow(a)


def forward_custom_calls(gu: GradientState) -> None:
    """Forward-pass duty of every active call with a custom derivative (before the
    reverse pass, so its lookups see the augmented call's primal result)."""
    for inst in list(gu.original.instructions()):
        if (isinstance(inst, CallBase) and gu.activity.is_active_instruction(inst)
                and classify(inst, has_rule) is CallKind.CUSTOM):
            forward_custom_call(gu, inst)
