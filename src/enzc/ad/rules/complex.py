"""Derivatives of C99 complex arithmetic (`complex.h`): `__muldc3`, `cexp`, `cabs`, ...

Clang multiplies and divides complex numbers inline but falls back to the
runtime's `__muldc3`/`__divdc3` (Annex G infinity/NaN recovery) on a NaN result,
and calls libm for `cexp`, `clog`, `csqrt`, `cabs`. The forward pass keeps
those calls; the reverse pass adds, for a holomorphic `w = f(z)` with adjoint
`dw` (real and imaginary parts' adjoints as one complex number),
`dz += conj(f'(z)) * dw` — e.g. `dx += conj(y) * dw` for `w = x * y`. `cabs` is
real-valued: `d(re, im) += (re, im) / |z| * dr`.

ABI shapes (x86-64 SysV): a `double complex` argument is two `double`s and the
result `{double, double}`; `float complex` results are `<2 x float>`, and libm's
`cexpf`/`cabsf` take one `<2 x float>`; long double multiply/divide
(`__mulxc3`) take four `x86_fp80`.
"""

from __future__ import annotations

from enzc.ir.instructions import CallBase
from enzc.ir.types import I32, StructType, VectorType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.gradient_state import GradientState

Complex = tuple[Value, Value]

OPERATIONS: dict[str, str] = {
    **{f"__mul{k}c3": "mul" for k in "sdx"},
    **{f"__div{k}c3": "div" for k in "sdx"},
    "cexp": "exp", "cexpf": "exp", "clog": "log", "clogf": "log",
    "csqrt": "sqrt", "csqrtf": "sqrt", "cabs": "abs", "cabsf": "abs",
}
"""Runtime/libm name → the operation differentiated."""


def reverse_complex(gu: GradientState, call: CallBase, op: str) -> None:
    """Add the adjoints of `call`'s complex operands (see the module docstring)."""
    b = gu.b
    result_adjoint = gu.take_adjoint(call)
    operands = _operands(gu, call)
    if op == "abs":
        (z,) = operands
        r = gu.lookup(gu.new_value(call))
        scale = b.fdiv(result_adjoint, r, "cabs.scale")
        _add(gu, call, 0, (b.fmul(z[0], scale, "d.cabs.re"), b.fmul(z[1], scale, "d.cabs.im")))
        return
    dw = _parts(gu, result_adjoint)
    if op == "mul":
        x, y = operands
        _add(gu, call, 0, _mul(gu, _conj(gu, y), dw))
        _add(gu, call, 1, _mul(gu, _conj(gu, x), dw))
        return
    w = _parts(gu, gu.lookup(gu.new_value(call)))
    if op == "div":
        x, y = operands
        dx = _div(gu, dw, _conj(gu, y))
        _add(gu, call, 0, dx)
        _add(gu, call, 1, _neg(gu, _mul(gu, _conj(gu, w), dx)))
    elif op == "exp":
        _add(gu, call, 0, _mul(gu, _conj(gu, w), dw))
    elif op == "log":
        (z,) = operands
        _add(gu, call, 0, _div(gu, dw, _conj(gu, z)))
    elif op == "sqrt":
        two_w = (b.fadd(w[0], w[0], "c.2re"), b.fadd(w[1], w[1], "c.2im"))
        _add(gu, call, 0, _div(gu, dw, _conj(gu, two_w)))
    else:
        raise AssertionError(op)


def _arg_groups(call: CallBase) -> list[list[int]]:
    """Indices of the call's arguments making up each complex operand."""
    args = call.args
    if all(isinstance(a.type, VectorType) for a in args):
        return [[i] for i in range(len(args))]
    return [[i, i + 1] for i in range(0, len(args), 2)]


def _operands(gu: GradientState, call: CallBase) -> list[Complex]:
    out = []
    for group in _arg_groups(call):
        vals = [gu.lookup(gu.new_value(call.args[i])) for i in group]
        out.append(_parts(gu, vals[0]) if len(vals) == 1 else (vals[0], vals[1]))
    return out


def _parts(gu: GradientState, v: Value) -> Complex:
    """(re, im) of a `{T, T}` or `<2 x T>` value."""
    b = gu.b
    if isinstance(v.type, StructType):
        return b.extract_value(v, [0], "c.re"), b.extract_value(v, [1], "c.im")
    return (b.extract_element(v, ConstantInt(I32, 0), "c.re"), b.extract_element(v, ConstantInt(I32, 1), "c.im"))


def _add(gu: GradientState, call: CallBase, operand: int, delta: Complex) -> None:
    group = _arg_groups(call)[operand]
    if len(group) == 2:
        gu.add_adjoint(call.args[group[0]], delta[0])
        gu.add_adjoint(call.args[group[1]], delta[1])
        return
    arg = call.args[group[0]]
    if not gu.has_adjoint(arg):
        return
    b = gu.b
    vec = b.insert_element(b.const_zero(arg.type), delta[0], ConstantInt(I32, 0), "d.c")
    gu.add_adjoint(arg, b.insert_element(vec, delta[1], ConstantInt(I32, 1), "d.c"))


def _conj(gu: GradientState, z: Complex) -> Complex:
    return z[0], gu.b.fneg(z[1], "c.conj")


def _neg(gu: GradientState, z: Complex) -> Complex:
    return gu.b.fneg(z[0], "c.neg"), gu.b.fneg(z[1], "c.neg")


def _mul(gu: GradientState, p: Complex, q: Complex) -> Complex:
    b = gu.b
    re = b.fsub(b.fmul(p[0], q[0], "c.m"), b.fmul(p[1], q[1], "c.m"), "c.mre")
    im = b.fadd(b.fmul(p[0], q[1], "c.m"), b.fmul(p[1], q[0], "c.m"), "c.mim")
    return re, im


def _div(gu: GradientState, p: Complex, q: Complex) -> Complex:
    b = gu.b
    norm = b.fadd(b.fmul(q[0], q[0], "c.n"), b.fmul(q[1], q[1], "c.n"), "c.norm")
    re = b.fadd(b.fmul(p[0], q[0], "c.d"), b.fmul(p[1], q[1], "c.d"), "c.dre")
    im = b.fsub(b.fmul(p[1], q[0], "c.d"), b.fmul(p[0], q[1], "c.d"), "c.dim")
    return b.fdiv(re, norm, "c.qre"), b.fdiv(im, norm, "c.qim")
