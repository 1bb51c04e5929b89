"""Derivatives of C99 complex arithmetic (`complex.h`): `__muldc3`, `cexp`, `cabs`, ...

Clang multiplies and divides complex numbers inline but falls back to the
runtime's `__muldc3`/`__divdc3` (Annex G infinity/NaN recovery) on a NaN result,
and calls libm for the elementary functions (`cexp`, `clog`, `csqrt`, `cpow`, the
trigonometric and hyperbolic ones and their inverses, `cabs`, `carg`). The forward
pass keeps those calls; the reverse pass adds, for a holomorphic `w = f(z)` with
adjoint `dw` (real and imaginary parts' adjoints as one complex number),
`dz += conj(f'(z)) * dw` — e.g. `dx += conj(y) * dw` for `w = x * y` — and forward
mode's tangent is `dw = f'(z) dz`. `f'(z)` comes from `w` where it can (`exp`:
`w`, `tan`: `1 + w^2`) and otherwise from libm again (`sin`: `ccos(z)`; `cpow(z,
a)`: `a cpow(z, a - 1)` and `w clog(z)`). `cabs` and `carg` are real-valued:
`d(re, im) += (re, im) / |z| * dr` and `(-im, re) / |z|^2 * dr`.

ABI shapes (x86-64 SysV): a `double complex` argument is two `double`s and the
result `{double, double}`; `float complex` results are `<2 x float>`, and libm's
`cexpf`/`cabsf` take one `<2 x float>`; long double multiply/divide
(`__mulxc3`) take four `x86_fp80`.
"""

from __future__ import annotations

from collections.abc import Callable

from enzc.ir.builder import IRBuilder, get_or_insert_function
from enzc.ir.instructions import CallBase
from enzc.ir.module import Module
from enzc.ir.types import I32, FunctionType, StructType, VectorType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.gradient_state import GradientState

Complex = tuple[Value, Value]

HOLOMORPHIC = ("exp", "log", "sqrt", "pow", "sin", "cos", "tan", "sinh", "cosh", "tanh",
               "asin", "acos", "atan", "asinh", "acosh", "atanh")
"""libm's complex functions (`c` + name, `c` + name + `f`) with a complex derivative."""

OPERATIONS: dict[str, str] = {
    **{f"__mul{k}c3": "mul" for k in "sdx"},
    **{f"__div{k}c3": "div" for k in "sdx"},
    **{f"c{op}{suffix}": op for op in (*HOLOMORPHIC, "abs", "arg") for suffix in ("", "f")},
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
    if op == "arg":
        (z,) = operands
        scale = b.fdiv(result_adjoint, _norm(b, z), "carg.scale")
        _add(gu, call, 0, (b.fneg(b.fmul(z[1], scale, "d.carg.re"), "d.carg.re"), b.fmul(z[0], scale, "d.carg.im")))
        return
    dw = _parts(b, result_adjoint)
    if op == "mul":
        x, y = operands
        _add(gu, call, 0, _mul(b, _conj(b, y), dw))
        _add(gu, call, 1, _mul(b, _conj(b, x), dw))
        return
    w = _parts(b, gu.lookup(gu.new_value(call)))
    if op == "div":
        x, y = operands
        dx = _div(b, dw, _conj(b, y))
        _add(gu, call, 0, dx)
        _add(gu, call, 1, _neg(b, _mul(b, _conj(b, w), dx)))
        return
    needed = [any(gu.has_adjoint(call.args[i]) for i in group) for group in _arg_groups(call)]
    for i, slope in enumerate(_slopes(b, gu.module, call, op, operands, w, needed)):
        if slope is not None:
            _add(gu, call, i, _mul(b, _conj(b, slope), dw))


def forward_complex(b: IRBuilder, module: Module, call: CallBase, op: str, operands: list[Complex],
                    tangents: list[Complex | None], result: Value) -> Value:
    """The tangent of `call` (whose forward clone returned `result`), from its
    complex `operands` and their `tangents` (None: no tangent): `dw = f'(z) dz`,
    `dw = dx y + x dy` for `w = x * y`; `cabs`: `(re dre + im dim) / |z|`."""
    if op == "abs":
        ((re, im),), (dz,) = operands, tangents
        assert dz is not None
        dot = b.fadd(b.fmul(re, dz[0], "d.cabs"), b.fmul(im, dz[1], "d.cabs"), "d.cabs")
        return b.fdiv(dot, result, "d.cabs")
    if op == "arg":
        ((re, im),), (dz,) = operands, tangents
        assert dz is not None
        cross = b.fsub(b.fmul(re, dz[1], "d.carg"), b.fmul(im, dz[0], "d.carg"), "d.carg")
        return b.fdiv(cross, _norm(b, (re, im)), "d.carg")
    w = _parts(b, result)
    zero = b.const_zero(w[0].type)
    dzs = [t if t is not None else (zero, zero) for t in tangents]
    if op == "mul":
        (x, y), (dx, dy) = operands, dzs
        dw = _add_complex(b, _mul(b, dx, y), _mul(b, x, dy))
    elif op == "div":
        (_, y), (dx, dy) = operands, dzs
        dw = _div(b, _add_complex(b, dx, _neg(b, _mul(b, w, dy))), y)
    else:
        slopes = _slopes(b, module, call, op, operands, w, [t is not None for t in tangents])
        terms = [_mul(b, slope, dz) for slope, dz in zip(slopes, dzs) if slope is not None]
        dw = terms[0] if len(terms) == 1 else _add_complex(b, *terms)
    return _complex_value(b, result.type, dw)


def _slopes(b: IRBuilder, module: Module, call: CallBase, op: str, operands: list[Complex],
            w: Complex, needed: list[bool]) -> list[Complex | None]:
    """`f'` at the call's operands for `w = f(z)` (`w = z^a`: the derivatives in `z`
    and in `a`), None for an operand not `needed` (no tangent or adjoint)."""
    z = operands[0]
    libm = _LibmCaller(b, module, call)
    one = _real(b, z, 1.0)
    if op == "pow":
        a = operands[1]
        by_base = _mul(b, a, libm("pow", z, (b.fsub(a[0], one[0], "cpow.a1"), a[1]))) if needed[0] else None
        return [by_base, _mul(b, w, libm("log", z)) if needed[1] else None]
    square = _mul(b, z, z) if op in ("asin", "acos", "atan", "asinh", "atanh") else one
    match op:
        case "exp":
            slope = w
        case "log":
            slope = _div(b, one, z)
        case "sqrt":
            slope = _div(b, one, _add_complex(b, w, w))
        case "sin":
            slope = libm("cos", z)
        case "cos":
            slope = _neg(b, libm("sin", z))
        case "tan":
            slope = _add_complex(b, one, _mul(b, w, w))
        case "sinh":
            slope = libm("cosh", z)
        case "cosh":
            slope = libm("sinh", z)
        case "tanh":
            slope = _sub(b, one, _mul(b, w, w))
        case "asin":
            slope = _div(b, one, libm("sqrt", _sub(b, one, square)))
        case "acos":
            slope = _neg(b, _div(b, one, libm("sqrt", _sub(b, one, square))))
        case "atan":
            slope = _div(b, one, _add_complex(b, one, square))
        case "asinh":
            slope = _div(b, one, libm("sqrt", _add_complex(b, one, square)))
        case "acosh":
            slope = _div(b, one, _mul(b, libm("sqrt", _sub(b, z, one)), libm("sqrt", _add_complex(b, z, one))))
        case "atanh":
            slope = _div(b, one, _sub(b, one, square))
        case _:
            raise AssertionError(op)
    return [slope]


class _LibmCaller:
    """Calls of libm's complex functions of the same precision and ABI as `call`."""

    def __init__(self, b: IRBuilder, module: Module, call: CallBase) -> None:
        self.b, self.module = b, module
        self.result_type = call.type
        self.suffix = "f" if isinstance(call.type, VectorType) else ""

    def __call__(self, op: str, *zs: Complex) -> Complex:
        t = self.result_type
        params = (t,) * len(zs) if isinstance(t, VectorType) else (t.elements[0],) * (2 * len(zs))
        fn = get_or_insert_function(self.module, f"c{op}{self.suffix}", FunctionType(t, params))
        args: list[Value] = []
        for z in zs:
            args += [_complex_value(self.b, t, z)] if isinstance(t, VectorType) else list(z)
        return _parts(self.b, self.b.call(fn, args, f"c{op}"))


def _real(b: IRBuilder, like: Complex, value: float) -> Complex:
    """The complex constant `value + 0i` of `like`'s precision."""
    t = like[0].type
    return b.const_fp(t, value), b.const_fp(t, 0.0)


def _sub(b: IRBuilder, p: Complex, q: Complex) -> Complex:
    return b.fsub(p[0], q[0], "c.s"), b.fsub(p[1], q[1], "c.s")


def complex_parts(b: IRBuilder, call: CallBase, value_of: Callable[[Value], Value],
                  present: Callable[[Value], bool] = lambda _: True) -> list[Complex | None]:
    """(re, im) of each complex operand of `call`, its arguments mapped by `value_of`;
    None for an operand none of whose arguments is `present`."""
    out: list[Complex | None] = []
    for group in _arg_groups(call):
        args = [call.args[i] for i in group]
        if not any(present(a) for a in args):
            out.append(None)
            continue
        vals = [value_of(a) for a in args]
        out.append(_parts(b, vals[0]) if len(vals) == 1 else (vals[0], vals[1]))
    return out


def _add_complex(b: IRBuilder, p: Complex, q: Complex) -> Complex:
    return b.fadd(p[0], q[0], "c.a"), b.fadd(p[1], q[1], "c.a")


def _complex_value(b: IRBuilder, t, z: Complex) -> Value:
    """A `{T, T}` or `<2 x T>` value of type `t` holding `z`."""
    if isinstance(t, StructType):
        return b.insert_value(b.insert_value(b.const_undef(t), z[0], 0, "d.c"), z[1], 1, "d.c")
    vec = b.insert_element(b.const_undef(t), z[0], ConstantInt(I32, 0), "d.c")
    return b.insert_element(vec, z[1], ConstantInt(I32, 1), "d.c")


def _arg_groups(call: CallBase) -> list[list[int]]:
    """Indices of the call's arguments making up each complex operand."""
    args = call.args
    if all(isinstance(a.type, VectorType) for a in args):
        return [[i] for i in range(len(args))]
    return [[i, i + 1] for i in range(0, len(args), 2)]


def _operands(gu: GradientState, call: CallBase) -> list[Complex]:
    """The forward values of `call`'s complex operands, looked up in the reverse pass."""
    return complex_parts(gu.b, call, lambda a: gu.lookup(gu.new_value(a)))  # type: ignore[return-value]


def _parts(b: IRBuilder, v: Value) -> Complex:
    """(re, im) of a `{T, T}` or `<2 x T>` value."""
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


def _conj(b: IRBuilder, z: Complex) -> Complex:
    return z[0], b.fneg(z[1], "c.conj")


def _neg(b: IRBuilder, z: Complex) -> Complex:
    return b.fneg(z[0], "c.neg"), b.fneg(z[1], "c.neg")


def _mul(b: IRBuilder, p: Complex, q: Complex) -> Complex:
    re = b.fsub(b.fmul(p[0], q[0], "c.m"), b.fmul(p[1], q[1], "c.m"), "c.mre")
    im = b.fadd(b.fmul(p[0], q[1], "c.m"), b.fmul(p[1], q[0], "c.m"), "c.mim")
    return re, im


def _norm(b: IRBuilder, z: Complex) -> Value:
    """|z|^2."""
    return b.fadd(b.fmul(z[0], z[0], "c.n"), b.fmul(z[1], z[1], "c.n"), "c.norm")


def _div(b: IRBuilder, p: Complex, q: Complex) -> Complex:
    norm = _norm(b, q)
    re = b.fadd(b.fmul(p[0], q[0], "c.d"), b.fmul(p[1], q[1], "c.d"), "c.dre")
    im = b.fsub(b.fmul(p[1], q[0], "c.d"), b.fmul(p[0], q[1], "c.d"), "c.dim")
    return b.fdiv(re, norm, "c.qre"), b.fdiv(im, norm, "c.qim")
