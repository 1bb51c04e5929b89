"""The C wrappers that give each exported function its derivatives.

For a function `f` with something to differentiate (a floating-point input and a
floating-point output), enzc writes, in a C file compiled and differentiated with
the user's code:

    static void enzc_body__f(P1 p1, ..., double *p_a, double *ret)   // f with its
    { *ret = f(p1, ..., *p_a); }                                       // result stored
    void enzc_rev__f(...)   // __enzyme_autodiff(body, enzyme_dup, x, d_x, ...)
    void enzc_fwd__f(...)   // __enzyme_fwddiff(body, ...)
    void enzc_grad__f(...)  // __enzyme_autodiff(f's result returned, seed 1)

`enzc_grad__f` exists for functions with a floating result: reverse mode of a body
that returns the result instead of storing it, so the primal result is never
computed (as a C caller of __enzyme_autodiff gets it); `grad` uses it. A function
with several floating arrays also gets `enzc_grad_<i>__f` per array parameter i,
where that array (and any array the C code writes) alone is active: `grad(wrt="x")`
then costs what the C call `__enzyme_autodiff(f, enzyme_dup, x, dx, enzyme_const,
y, ...)` costs, with no shadow for a read-only y to allocate and accumulate.

Every active value is passed through memory: floating scalars by pointer and the
result through `ret`. Reverse mode then seeds the result's cotangent in `d_ret` and
accumulates each input's adjoint in its shadow, forward mode reads tangents from the
shadows and writes the outputs' tangents there, and no entry point returns a
struct. Floating pointers are `enzyme_dup`, everything else `enzyme_const`: a
single reverse and a single forward derivative per function serve every `wrt`.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzc.python.ctype import Pointer, Scalar
from enzc.python.signature import Param, Signature

RESULT = "return"
"""The name of a function's result among its outputs (`cotangents={"return": ...}`)."""
REV_PREFIX = "enzc_rev__"
FWD_PREFIX = "enzc_fwd__"
GRAD_PREFIX = "enzc_grad__"
_BODY_PREFIX = "enzc_body__"


@dataclass(frozen=True)
class Slot:
    """One argument of a derivative wrapper, from the Python side's point of view."""

    name: str
    """The C parameter it stands for, or RESULT."""
    ctype: Scalar | Pointer
    active: bool
    """Followed by a shadow (same type, always a pointer)."""
    boxed: bool
    """A scalar passed as a one-element array (an active floating scalar, the result)."""


def is_differentiable(sig: Signature) -> bool:
    """True if `sig` has a floating input and a floating output: worth a derivative."""
    if sig.unsupported is not None:
        return False
    inputs = any(_active(p.ctype) for p in sig.params)
    outputs = (isinstance(sig.result, Scalar) and sig.result.is_float) or any(
        p.written and _active(p.ctype) for p in sig.params)
    return inputs and outputs


def slots(sig: Signature) -> list[Slot]:
    """The arguments of `sig`'s wrappers in order: its parameters, then the result."""
    found = [Slot(p.name, p.ctype, _active(p.ctype), isinstance(p.ctype, Scalar)
                  and _active(p.ctype)) for p in sig.params
             if isinstance(p.ctype, (Scalar, Pointer))]
    if isinstance(sig.result, Scalar):
        found.append(Slot(RESULT, sig.result, sig.result.is_float, True))
    return found


def has_grad_wrapper(sig: Signature) -> bool:
    return isinstance(sig.result, Scalar) and sig.result.is_float


def grad_prefix(index: int | None) -> str:
    """The grad wrapper's prefix: all inputs active (None) or only parameter `index`."""
    return GRAD_PREFIX if index is None else f"enzc_grad_{index}__"


def single_grad_params(sig: Signature) -> list[int]:
    """Parameters with a grad wrapper of their own: the floating arrays, when a
    function with a floating result has several."""
    if not has_grad_wrapper(sig):
        return []
    arrays = [i for i, p in enumerate(sig.params) if isinstance(p.ctype, Pointer)
              and p.ctype.element.is_float]
    return arrays if len(arrays) > 1 else []


def grad_slots(sig: Signature, index: int | None) -> list[Slot]:
    """The grad wrapper's arguments: no result; with `index`, only that array and the
    arrays the C code writes are active. A written array (an output or scratch buffer
    the function reads back) must keep its shadow: made constant, the derivatives
    flowing through its memory would be lost, a silently wrong gradient."""
    found = [s for s in slots(sig) if s.name != RESULT]
    if index is None:
        return found
    keep = {sig.params[index].name} | {p.name for p in sig.params if p.written}
    return [Slot(s.name, s.ctype, s.active and s.name in keep, s.boxed) for s in found]


def wrapper_signatures(sig: Signature) -> list[Signature]:
    """The reverse, forward (and grad) wrappers' own signatures (for the Python shim)."""
    params = _wrapper_params(sig, slots(sig))
    found = [Signature(REV_PREFIX + sig.name, tuple(params), None, sig.where),
             Signature(FWD_PREFIX + sig.name, tuple(params), None, sig.where)]
    if has_grad_wrapper(sig):
        for index in [None, *single_grad_params(sig)]:
            grad_params = _wrapper_params(sig, grad_slots(sig, index))
            found.append(Signature(grad_prefix(index) + sig.name, tuple(grad_params), None,
                                   sig.where))
    return found


def _wrapper_params(sig: Signature, wrapper_slots: list[Slot]) -> list[Param]:
    params: list[Param] = []
    for slot in wrapper_slots:
        ctype = _pointer(slot.ctype) if slot.boxed else slot.ctype
        written = slot.boxed or any(p.written for p in sig.params if p.name == slot.name)
        params.append(Param(slot.name, ctype, written))
        if slot.active:
            params.append(Param("d_" + slot.name, _pointer(slot.ctype), True))
    return params


def wrapper_source(signatures: list[Signature]) -> str:
    """The C file with the body, reverse and forward wrapper of each function."""
    out = ["/* Generated by enzc.load: derivative wrappers. */",
           "#include <stdint.h>",
           "extern int enzyme_dup, enzyme_const;", ""]
    for sig in signatures:
        out += _wrappers_of(sig)
    return "\n".join(out) + "\n"


def _wrappers_of(sig: Signature) -> list[str]:
    params = list(sig.params)
    result = sig.result if isinstance(sig.result, Scalar) else None
    decl_params = ", ".join(_decl(p.ctype, "") for p in params) or "void"
    ret_decl = result.c_decl if result else "void"
    body_params = [_decl(_pointer(p.ctype) if isinstance(p.ctype, Scalar) and _boxed(p.ctype)
                         else p.ctype, p.name) for p in params]
    call_args = ", ".join(("*" if _boxed(p.ctype) else "") + p.name for p in params)
    call = f"{sig.name}({call_args})"
    if result is not None:
        body_params.append(f"{result.c_decl} *enzc_ret")
        call = f"*enzc_ret = {call}"
    lines = [f"{ret_decl} {sig.name}({decl_params});",
             f"static void {_BODY_PREFIX}{sig.name}({', '.join(body_params) or 'void'}) "
             f"{{ {call}; }}"]
    body = f"{_BODY_PREFIX}{sig.name}"
    lines += _entry_calls(sig, body, slots(sig), (REV_PREFIX, "__enzyme_autodiff"),
                          (FWD_PREFIX, "__enzyme_fwddiff"))
    if has_grad_wrapper(sig):
        returning = f"{_BODY_PREFIX}ret_{sig.name}"
        lines.append(f"static {ret_decl} {returning}({', '.join(body_params[:-1]) or 'void'}) "
                     f"{{ return {sig.name}({call_args}); }}")
        for index in [None, *single_grad_params(sig)]:
            lines += _entry_calls(sig, returning, grad_slots(sig, index),
                                  (grad_prefix(index), "__enzyme_autodiff"))
    return [*lines, ""]


def _entry_calls(sig: Signature, body: str, wrapper_slots: list[Slot],
                 *kinds: tuple[str, str]) -> list[str]:
    """A wrapper per (prefix, entry point) calling `body` through the entry point."""
    wrapper_params: list[str] = []
    entry_params = ["void *"]
    entry_args = [f"(void *){body}"]
    lines = []
    for slot in wrapper_slots:
        ctype = _pointer(slot.ctype) if slot.boxed else slot.ctype
        c_name = "enzc_ret" if slot.name == RESULT else slot.name
        wrapper_params.append(_decl(ctype, c_name))
        entry_params += ["int", _decl(ctype, "")]
        entry_args += ["enzyme_dup" if slot.active else "enzyme_const", c_name]
        if slot.active:
            wrapper_params.append(_decl(_pointer(slot.ctype), "enzc_d_" + c_name))
            entry_params.append(_decl(_pointer(slot.ctype), ""))
            entry_args.append("enzc_d_" + c_name)
    for prefix, entry in kinds:
        name = f"{entry}_{prefix}{sig.name}"
        lines += [f"void {name}({', '.join(entry_params)});",
                  f"void {prefix}{sig.name}({', '.join(wrapper_params)}) "
                  f"{{ {name}({', '.join(entry_args)}); }}"]
    return lines


def _active(ctype: object) -> bool:
    return isinstance(ctype, (Scalar, Pointer)) and _element(ctype).is_float


def _boxed(ctype: object) -> bool:
    return isinstance(ctype, Scalar) and ctype.is_float


def _element(ctype: Scalar | Pointer) -> Scalar:
    return ctype.element if isinstance(ctype, Pointer) else ctype


def _pointer(ctype: Scalar | Pointer) -> Pointer:
    element = _element(ctype)
    return Pointer(element, False, element.spelled)


def _decl(ctype: object, name: str) -> str:
    """`double *x`, `int32_t n` (the generated spelling, ABI-equal to the user's)."""
    if isinstance(ctype, Pointer):
        return f"{ctype.element.c_decl} *{name}".rstrip()
    assert isinstance(ctype, Scalar)
    return f"{ctype.c_decl} {name}".rstrip()
