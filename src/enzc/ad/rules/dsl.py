"""The derivative-rule DSL: parse `table` expressions once, emit them as IR.

An expression is parsed into a small tree; `emit` walks it with an `IRBuilder`,
binding `x`, `y`, `z` to the call's (forward) arguments and `r` to its result,
each fetched lazily so a rule only makes the reverse pass look up what it uses.
Numbers take the floating type of the call; integer arguments (`powi`'s
exponent) stay integers until mixed with floats.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Protocol

from enzc.ir.builder import IRBuilder, get_or_insert_function
from enzc.ir.module import Module
from enzc.ir.types import FloatType, FunctionType, I32, IntType, Type, VectorType
from enzc.ir.values import ConstantFP, ConstantInt, ConstantSplat, Value, const_fp

from enzc.ad.rules.digamma import digamma_function

PARAMS = ("x", "y", "z")
"""Names of the call's arguments in rule expressions, in order."""

FUNCTIONS: dict[str, str] = {
    "sin": "sin", "cos": "cos", "exp": "exp", "log": "log", "sqrt": "sqrt", "pow": "pow",
    "powi": "powi", "copysign": "copysign", "sinh": "sinh", "cosh": "cosh", "trunc": "trunc",
    "roundeven": "roundeven",
}
"""Functions usable in rule expressions → the LLVM intrinsic (`llvm.NAME.<type>`)."""

LIBM_FUNCTIONS = frozenset({"j0", "j1", "jn", "y0", "y1", "yn"})
"""Functions usable in rule expressions that are libm calls (no intrinsic): the
Bessel functions, `NAME`, `NAMEf` or `NAMEl` by the type; `jn`/`yn` take the order
(an `int`) first. And `digamma`, which libm lacks: an internal function of the
module (`digamma.py`)."""

_LIBM_SUFFIX = {"double": "", "float": "f", "x86_fp80": "l"}


class RuleError(ValueError):
    """A malformed rule expression (a bug in the table, caught by its unit tests)."""


# ---------------------------------------------------------------------------
# Expression trees


@dataclass(frozen=True)
class Num:
    value: Fraction
    """Exactly the decimal of the rule text (rounded once, to the call's type, when emitted)."""


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class Unary:
    op: str
    operand: object


@dataclass(frozen=True)
class Bin:
    op: str
    lhs: object
    rhs: object


@dataclass(frozen=True)
class Cond:
    cond: object
    if_true: object
    if_false: object


@dataclass(frozen=True)
class Fn:
    name: str
    args: tuple


_TOKEN = re.compile(r"\s*(?:(\d+\.\d*(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?)|([A-Za-z_]\w*)|(<=|>=|==|[-+*/(),?:<>]))")
_BINDING = {"?": 1, "<": 2, ">": 2, "<=": 2, ">=": 2, "==": 2, "+": 3, "-": 3, "*": 4, "/": 4}


@lru_cache(maxsize=None)
def parse(text: str) -> object:
    """Parse one rule expression (precedence climbing)."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise RuleError(f"bad character in rule {text!r} at {pos}")
        num, ident, op = m.groups()
        tokens.append(("num", num) if num else ("id", ident) if ident else ("op", op))
        pos = m.end()
    tokens.append(("end", ""))
    at = [0]

    def peek() -> tuple[str, str]:
        return tokens[at[0]]

    def take(expected: str | None = None) -> tuple[str, str]:
        tok = tokens[at[0]]
        if expected is not None and tok[1] != expected:
            raise RuleError(f"expected {expected!r} in rule {text!r}, found {tok[1]!r}")
        at[0] += 1
        return tok

    def primary() -> object:
        kind, val = take()
        if kind == "num":
            return Num(Fraction(val))
        if kind == "id":
            if peek()[1] == "(":
                take("(")
                args = [expr(0)]
                while peek()[1] == ",":
                    take(",")
                    args.append(expr(0))
                take(")")
                if val not in FUNCTIONS and val not in LIBM_FUNCTIONS and val != "digamma":
                    raise RuleError(f"unknown function {val!r} in rule {text!r}")
                return Fn(val, tuple(args))
            if val not in PARAMS and val != "r":
                raise RuleError(f"unknown name {val!r} in rule {text!r}")
            return Var(val)
        if val == "(":
            inner = expr(0)
            take(")")
            return inner
        if val == "-":
            return Unary("-", expr(4))
        raise RuleError(f"unexpected {val!r} in rule {text!r}")

    def expr(min_bp: int) -> object:
        lhs = primary()
        while True:
            kind, op = peek()
            bp = _BINDING.get(op) if kind == "op" else None
            if bp is None or bp <= min_bp:
                return lhs
            take()
            if op == "?":
                yes = expr(0)
                take(":")
                no = expr(0)
                lhs = Cond(lhs, yes, no)
            else:
                lhs = Bin(op, lhs, expr(bp))

    tree = expr(0)
    if peek()[0] != "end":
        raise RuleError(f"trailing {peek()[1]!r} in rule {text!r}")
    return tree


# ---------------------------------------------------------------------------
# Rules


@dataclass(frozen=True)
class Rule:
    """Partial derivatives of a function, one expression (or None) per argument."""

    partials: tuple[str | None, ...]
    complex_op: str | None = None
    """Complex arithmetic (`complex`): the operation instead of partials."""

    def partial(self, index: int) -> object | None:
        text = self.partials[index] if index < len(self.partials) else None
        return parse(text) if text is not None else None


def D(*partials: str | None) -> Rule:
    """A table entry: the partial derivative with respect to each argument."""
    for p in partials:
        if p is not None:
            parse(p)
    return Rule(tuple(partials))


class EmitEnv(Protocol):
    """What an expression needs from the reverse pass: the call's values."""

    def argument(self, index: int) -> Value: ...

    def result(self) -> Value: ...

    def forward_call(self, function: str, params: tuple[str, ...]) -> Value | None:
        """The forward value of `function(params...)` if the forward pass computed it."""
        ...


def emit(tree: object, b: IRBuilder, module: Module, ftype: Type, env: EmitEnv) -> Value:
    """IR computing `tree` at the builder's position; numbers have type `ftype`."""
    bound: dict[str, Value] = {}

    def var(name: str) -> Value:
        if name not in bound:
            bound[name] = env.result() if name == "r" else env.argument(PARAMS.index(name))
        return bound[name]

    def to_float(v: Value) -> Value:
        if isinstance(v.type.scalar, IntType):
            if isinstance(v, ConstantInt):
                return typed_constant(Fraction(v.value), ftype)
            return b.sitofp(v, ftype, "ri")
        return v

    def go(node: object, want_int: bool = False) -> Value:
        match node:
            case Num(value=v):
                if want_int and v == int(v):
                    return ConstantInt(I32, int(v))
                return typed_constant(v, ftype)
            case Var(name=n):
                return var(n)
            case Unary(operand=x):
                return b.fneg(to_float(go(x)), "rneg")
            case Bin(op=op, lhs=l, rhs=r) if op in "+-*/":
                lv = go(l)
                rv = go(r, want_int=isinstance(lv.type, IntType))
                if isinstance(lv.type, IntType) and isinstance(rv.type, IntType):
                    return b.binop({"+": "add", "-": "sub", "*": "mul", "/": "sdiv"}[op], lv, rv, "ri")
                return b.binop({"+": "fadd", "-": "fsub", "*": "fmul", "/": "fdiv"}[op], to_float(lv), to_float(rv), "r")
            case Bin(op=op, lhs=l, rhs=r):
                return b.fcmp(_PREDICATES[op], to_float(go(l)), to_float(go(r)), "rc")
            case Cond(cond=c, if_true=t, if_false=f):
                return b.select(go(c), to_float(go(t)), to_float(go(f)), "rs")
            case Fn(name=name, args=args) if all(isinstance(a, Var) and a.name in PARAMS for a in args) and (
                    reused := env.forward_call(name, tuple(a.name for a in args))) is not None:
                return reused
            case Fn(name="digamma", args=(arg,)):
                psi = digamma_function(module, ftype, type_suffix(ftype), typed_constant)
                return b.call(psi, [to_float(go(arg))], "rf")
            case Fn(name=name, args=args) if name in LIBM_FUNCTIONS:
                order = name in ("jn", "yn")
                vals = [go(a, want_int=order and k == 0) for k, a in enumerate(args)]
                vals = [v if order and k == 0 else to_float(v) for k, v in enumerate(vals)]
                kind = getattr(ftype, "kind", None)
                if kind not in _LIBM_SUFFIX:
                    raise RuleError(f"no libm '{name}' for {ftype}")
                libm = get_or_insert_function(module, name + _LIBM_SUFFIX[kind],
                                              FunctionType(ftype, tuple(v.type for v in vals)))
                return b.call(libm, vals, "rf")
            case Fn(name=name, args=args):
                vals = [go(args[0])] + [go(a, want_int=(name == "powi")) for a in args[1:]]
                if name != "powi":
                    vals = [to_float(v) for v in vals]
                else:
                    vals[0] = to_float(vals[0])
                return b.call(intrinsic(module, FUNCTIONS[name], ftype, [v.type for v in vals[1:]] if name == "powi" else []),
                              vals, "rf")
        raise RuleError(f"cannot emit {node!r}")

    return to_float(go(tree))


def emit_scaled(tree: object, scale: Value, b: IRBuilder, module: Module, ftype: Type, env: EmitEnv) -> Value:
    """IR computing `tree * scale`, the multiplication pushed into the arms of
    conditionals and an arm that is 0 giving an exact 0: an adjoint or tangent
    that is 0 (or NaN) then never meets an infinite partial on the untaken side
    (`fmax(sqrt(0), eps)`: 0 * inf would be NaN)."""
    match tree:
        case Num(value=0.0):
            return b.const_zero(scale.type)
        case Num(value=1.0):
            return scale
        case Cond(cond=c, if_true=t, if_false=f):
            cond = emit_condition(c, b, module, ftype, env)
            return b.select(cond, emit_scaled(t, scale, b, module, ftype, env),
                            emit_scaled(f, scale, b, module, ftype, env), "rs")
    return b.fmul(scale, emit(tree, b, module, ftype, env), "r.scaled")


def emit_condition(tree: object, b: IRBuilder, module: Module, ftype: Type, env: EmitEnv) -> Value:
    """The i1 value of a comparison in a rule."""
    if not (isinstance(tree, Bin) and tree.op in _PREDICATES):
        raise RuleError(f"a condition must be a comparison, not {tree!r}")
    return b.fcmp(_PREDICATES[tree.op], emit(tree.lhs, b, module, ftype, env), emit(tree.rhs, b, module, ftype, env),
                  "rc")


_PREDICATES = {"<": "olt", ">": "ogt", "<=": "ole", ">=": "oge", "==": "oeq"}


_PRECISION = {"half": 11, "bfloat": 8, "float": 24, "double": 53, "x86_fp80": 64, "fp128": 113}
"""Significand bits of each float kind (with the leading one)."""


def typed_constant(value: Fraction, t: Type) -> Value:
    """`value` rounded once (to nearest, ties to even) to the precision of `t`'s
    scalar type, as a constant of `t` (a splat for vectors): a rule's `0.693...` in
    a `float` derivative is the float nearest ln 2, in a `long double` one the
    x86_fp80 nearest it, not a double's digits."""
    scalar = t.scalar
    bits = _PRECISION.get(scalar.kind)  # type: ignore[attr-defined]
    if bits is None or value == 0:
        return const_fp(t, float(value))
    sign, m, e = _rounded(value, bits)
    approx = sign * math.ldexp(m >> max(0, bits - 53), e + max(0, bits - 53))
    if bits <= 53:
        return const_fp(t, approx)
    c = ConstantFP(scalar, approx, _wide_spelling(sign, m, e, scalar.kind))  # type: ignore[arg-type, attr-defined]
    return ConstantSplat(t, c) if isinstance(t, VectorType) else c  # type: ignore[arg-type]


def _rounded(value: Fraction, bits: int) -> tuple[int, int, int]:
    """(sign, m, e) with `m` of exactly `bits` bits and |value| ~ m * 2**e, rounded to
    nearest with ties to even (normal numbers: rule constants are)."""
    sign = -1 if value < 0 else 1
    a = abs(value)
    e = a.numerator.bit_length() - a.denominator.bit_length()  # 2**e <= a < 2**(e+2)
    if a < Fraction(2) ** e:
        e -= 1
    elif a >= Fraction(2) ** (e + 1):
        e += 1
    m = round(a / Fraction(2) ** (e - bits + 1))  # Fraction.__round__: ties to even
    if m == 1 << bits:
        m, e = m >> 1, e + 1
    return sign, m, e - bits + 1


def _wide_spelling(sign: int, m: int, e: int, kind: str) -> str:
    """LLVM's hex spelling of sign * m * 2**e in x86_fp80 (`0xK`, explicit integer
    bit) or fp128 (`0xL`, low 64 bits first)."""
    if kind == "x86_fp80":
        exponent = e + 63 + 16383
        return "0xK%020X" % ((sign < 0) << 79 | exponent << 64 | m)
    exponent = e + 112 + 16383
    word = (sign < 0) << 127 | exponent << 112 | (m - (1 << 112))
    return "0xL%016X%016X" % (word & ((1 << 64) - 1), word >> 64)


def type_suffix(t: Type) -> str:
    """LLVM's overload suffix: f64, f32, v2f64, i32."""
    match t:
        case FloatType(kind=k):
            return {"double": "f64", "float": "f32", "half": "f16", "bfloat": "bf16", "x86_fp80": "f80",
                    "fp128": "f128", "ppc_fp128": "ppcf128"}[k]
        case VectorType(count=n, element=e):
            return f"v{n}{type_suffix(e)}"
        case IntType(bits=n):
            return f"i{n}"
    raise RuleError(f"no intrinsic suffix for {t}")


def intrinsic(module: Module, base: str, ftype: Type, extra: list[Type]) -> object:
    """Declare (once) `llvm.<base>.<ftype>[.<extra>...]` returning `ftype`."""
    nargs = {"pow": 2, "copysign": 2, "powi": 2}.get(base, 1)
    params = [ftype] * (nargs - len(extra)) + extra
    name = ".".join(["llvm", base, type_suffix(ftype)] + [type_suffix(t) for t in extra])
    return get_or_insert_function(module, name, FunctionType(ftype, tuple(params)))
