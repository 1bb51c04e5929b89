"""Random expressions over live values, in safe domains.

Each libm form keeps its argument inside the function's domain by construction
(`log(c + a*a)`, `asin(0.9 * tanh(a))`, `exp` only of bounded arguments, ...) and
reports a bound on its result, so nothing overflows or leaves a domain at any input
point. Kinks (fabs, fmax, fmin) come only with the `kinks` feature: their
derivative is right except exactly at the kink, and the checker resamples the
point when finite differences straddle one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Callable

from .context import MAX_BOUND, FunctionContext


@dataclass(frozen=True)
class Operand:
    """A C expression (parenthesized when compound) and a bound on its magnitude."""

    text: str
    bound: float


def lit(value: str, ctype: str) -> str:
    return value + "f" if ctype == "float" else value


def call(name: str, ctype: str) -> str:
    return name + "f" if ctype == "float" else name


def squash(ctx: FunctionContext, e: Operand, ctype: str = "double") -> Operand:
    """Scale an operand whose bound is too large back to O(1)."""
    if e.bound <= MAX_BOUND:
        return e
    scale = 2.0 / e.bound
    return Operand(f"({e.text} * {lit(f'{scale:.3g}', ctype)})", 2.0)


def small(ctx: FunctionContext, a: Operand, t: str, limit: float = 3.0) -> Operand:
    """a itself if |a| <= limit, else sin(a): keeps a*a and exponents moderate."""
    if a.bound <= limit:
        return a
    return Operand(f"{call('sin', t)}({a.text})", 1.0)


Form = Callable[[FunctionContext, Operand, Operand, str], Operand]


def _pos(ctx: FunctionContext, lo: float, hi: float) -> tuple[float, str]:
    v = round(ctx.rng.uniform(lo, hi), 2)
    return v, f"{v:.2f}"


def _sin(ctx: FunctionContext, a: Operand, b: Operand, t: str) -> Operand:
    return Operand(f"{call(ctx.rng.choice(['sin', 'cos']), t)}({a.text})", 1.0)


def _tanh_like(ctx: FunctionContext, a: Operand, b: Operand, t: str) -> Operand:
    name = ctx.rng.choice(["tanh", "atan", "erf", "erfc", "asinh"])
    bound = {"tanh": 1.0, "atan": 1.6, "erf": 1.0, "erfc": 2.0,
             "asinh": math.asinh(a.bound)}[name]
    return Operand(f"{call(name, t)}({a.text})", bound)


def _exp_like(ctx: FunctionContext, a: Operand, b: Operand, t: str) -> Operand:
    name = ctx.rng.choice(["exp", "expm1", "exp2", "sinh", "cosh"])
    arg = a if a.bound <= 3.0 else Operand(f"{call('sin', t)}({a.text})", 1.0)
    fn = {"exp": math.exp, "expm1": math.exp, "exp2": lambda v: 2.0 ** v,
          "sinh": math.cosh, "cosh": math.cosh}[name]
    return Operand(f"{call(name, t)}({arg.text})", fn(arg.bound))


def _log_like(ctx: FunctionContext, a: Operand, b: Operand, t: str) -> Operand:
    a, b = small(ctx, a, t), small(ctx, b, t)
    name = ctx.rng.choice(["log", "log2", "log10", "log1p"])
    c, cs = _pos(ctx, 0.5, 2.0)
    if name == "log1p":
        return Operand(f"{call(name, t)}({a.text} * {a.text})", math.log1p(a.bound ** 2))
    return Operand(f"{call(name, t)}({lit(cs, t)} + {a.text} * {a.text})",
                   abs(math.log(c)) + math.log1p(a.bound ** 2 / c) * 1.5)


def _root_like(ctx: FunctionContext, a: Operand, b: Operand, t: str) -> Operand:
    a, b = small(ctx, a, t), small(ctx, b, t)
    c, cs = _pos(ctx, 0.5, 2.0)
    if ctx.chance(0.5):
        return Operand(f"{call('sqrt', t)}({lit(cs, t)} + {a.text} * {a.text})",
                       math.sqrt(c + a.bound ** 2))
    return Operand(f"{call('cbrt', t)}({lit(cs, t)} + {a.text} * {a.text})",
                   (c + a.bound ** 2) ** (1 / 3))


def _pow(ctx: FunctionContext, a: Operand, b: Operand, t: str) -> Operand:
    a, b = small(ctx, a, t), small(ctx, b, t)
    if ctx.chance(0.4):  # integer power of a value of any sign
        k = ctx.rng.choice([2, 3])
        return Operand(f"{call('pow', t)}({a.text}, {lit(f'{k}.0', t)})", a.bound ** k)
    c, cs = _pos(ctx, 0.5, 2.0)
    if b.bound <= 2.0 and ctx.chance(0.5):  # active exponent
        base = c + a.bound ** 2
        return Operand(f"{call('pow', t)}({lit(cs, t)} + {a.text} * {a.text}, {b.text})",
                       max(base ** b.bound, c ** -b.bound))
    p = round(ctx.rng.uniform(-1.5, 2.5), 2)
    base = c + a.bound ** 2
    return Operand(f"{call('pow', t)}({lit(cs, t)} + {a.text} * {a.text}, "
                   f"{lit(f'{p:.2f}', t)})", max(base ** p, c ** p))


def _trig_inverse(ctx: FunctionContext, a: Operand, b: Operand, t: str) -> Operand:
    a, b = small(ctx, a, t), small(ctx, b, t)
    name = ctx.rng.choice(["asin", "acos", "atanh", "tan", "acosh"])
    if name == "acosh":
        c, cs = _pos(ctx, 1.2, 2.0)
        return Operand(f"{call('acosh', t)}({lit(cs, t)} + {a.text} * {a.text})",
                       math.acosh(c + a.bound ** 2))
    k = lit(f"{round(ctx.rng.uniform(0.3, 0.9), 2):.2f}", t)
    inner = f"{call(ctx.rng.choice(['sin', 'tanh']), t)}({a.text})"
    bound = {"asin": 1.6, "acos": 3.2, "atanh": 1.5, "tan": 1.3}[name]
    return Operand(f"{call(name, t)}({k} * {inner})", bound)


def _two_arg(ctx: FunctionContext, a: Operand, b: Operand, t: str) -> Operand:
    a, b = small(ctx, a, t), small(ctx, b, t)
    c, cs = _pos(ctx, 0.5, 2.0)
    match ctx.rng.choice(["atan2", "hypot", "fma", "div"]):
        case "atan2":  # the denominator stays positive: no branch cut
            return Operand(f"{call('atan2', t)}({a.text}, {lit(cs, t)} + {b.text} * {b.text})",
                           1.6)
        case "hypot":
            return Operand(f"{call('hypot', t)}({a.text}, {lit(cs, t)} + {b.text} * {b.text})",
                           a.bound + c + b.bound ** 2)
        case "fma":
            return Operand(f"{call('fma', t)}({a.text}, {b.text}, {lit(cs, t)})",
                           a.bound * b.bound + c)
        case _:
            return Operand(f"({a.text} / ({lit(cs, t)} + {b.text} * {b.text}))", a.bound / c)


def _kink(ctx: FunctionContext, a: Operand, b: Operand, t: str) -> Operand:
    name = ctx.rng.choice(["fabs", "fmax", "fmin"])
    if name == "fabs":
        return Operand(f"{call('fabs', t)}({a.text})", a.bound)
    return Operand(f"{call(name, t)}({a.text}, {b.text})", max(a.bound, b.bound))


LIBM_FORMS: tuple[Form, ...] = (_sin, _tanh_like, _exp_like, _log_like, _root_like, _pow,
                                _trig_inverse, _two_arg)


def arithmetic(ctx: FunctionContext, a: Operand, b: Operand, t: str) -> Operand:
    """a+b, a-b, a*b, c*a+b."""
    match ctx.rng.choice("+-*c"):
        case "+":
            return Operand(f"({a.text} + {b.text})", a.bound + b.bound)
        case "-":
            return Operand(f"({a.text} - {b.text})", a.bound + b.bound)
        case "*":
            return Operand(f"({a.text} * {b.text})", a.bound * b.bound)
        case _:
            c = ctx.const()
            return Operand(f"({lit(c, t)} * {a.text} + {b.text})",
                           abs(float(c)) * a.bound + b.bound)


def leaf(ctx: FunctionContext, t: str, extra: list[Operand] | None = None) -> Operand:
    """A live value (converted to type t), an extra operand (e.g. buf[i]) or a constant."""
    if extra and ctx.chance(0.5):
        return ctx.rng.choice(extra)
    if not ctx.pool or ctx.chance(0.05):
        return Operand(lit(ctx.const(), t), 1.5)
    v = ctx.pick(t if ctx.chance(0.8) else None)
    if v.ctype != t:
        return Operand(f"({t}){v.name}", v.bound)
    return Operand(v.name, v.bound)


def expression(ctx: FunctionContext, depth: int = 2, t: str = "double",
               extra: list[Operand] | None = None) -> Operand:
    """A random expression of type t over live values; its bound is <= MAX_BOUND."""
    if depth <= 0 or ctx.chance(0.25):
        return leaf(ctx, t, extra)
    a = squash(ctx, expression(ctx, depth - 1, t, extra), t)
    b = a
    for _ in range(3):  # a - a, a / (c + a * a): legal but weak tests
        b = squash(ctx, leaf(ctx, t, extra) if ctx.chance(0.6) else expression(ctx, depth - 1, t, extra), t)
        if b.text != a.text:
            break
    roll = ctx.rng.random()
    if ctx.has("kinks") and roll < 0.12:
        e = _kink(ctx, a, b, t)
    elif ctx.has("libm") and roll < 0.6:
        e = ctx.rng.choice(LIBM_FORMS)(ctx, a, b, t)
    else:
        e = arithmetic(ctx, a, b, t)
    return squash(ctx, e, t)


def condition(ctx: FunctionContext, extra: list[Operand] | None = None) -> str:
    """A comparison away from ties where possible: an input against 0 (margin >= 0.3),
    else a computed value against a threshold (the checker resamples near a tie)."""
    inputs = [v for v in ctx.pool if v.is_input]
    op = ctx.rng.choice(["<", ">", "<=", ">="])
    if inputs and ctx.chance(0.4):
        return f"{ctx.rng.choice(inputs).name} {op} 0.0"
    e = expression(ctx, 1, "double", extra)
    thresh = ctx.const(0.0, 0.8 * min(e.bound, 1.0) + 0.01)
    return f"{e.text} {op} {thresh}"
