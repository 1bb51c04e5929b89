"""The derivative table: every entry parses, names resolve, and each partial agrees
with a central finite difference of the function itself (evaluated in Python)."""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import pytest

from enzc.ad.rules.dsl import Bin, Cond, Fn, Num, RuleError, Unary, Var, parse
from enzc.ad.rules.table import TABLE, rule_for

_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
for _name in ("j0", "j1", "y0", "y1"):
    getattr(_LIBM, _name).restype, getattr(_LIBM, _name).argtypes = ctypes.c_double, [ctypes.c_double]
for _name in ("jn", "yn"):
    getattr(_LIBM, _name).restype, getattr(_LIBM, _name).argtypes = ctypes.c_double, [ctypes.c_int, ctypes.c_double]
BESSEL = {"j0": _LIBM.j0, "j1": _LIBM.j1, "y0": _LIBM.y0, "y1": _LIBM.y1,
          "jn": lambda n, x: _LIBM.jn(int(n), x), "yn": lambda n, x: _LIBM.yn(int(n), x)}
"""glibc's Bessel functions (Python's math has none)."""

PY: dict[str, object] = {
    "sqrt": math.sqrt, "cbrt": lambda x: math.copysign(abs(x) ** (1 / 3), x), "pow": math.pow,
    "powi": lambda x, n: x ** n, "exp": math.exp, "exp2": lambda x: 2.0 ** x, "exp10": lambda x: 10.0 ** x,
    "expm1": math.expm1, "log": math.log, "log2": math.log2, "log10": math.log10, "log1p": math.log1p,
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos,
    "atan": math.atan, "atan2": math.atan2, "sinh": math.sinh, "cosh": math.cosh, "tanh": math.tanh,
    "fabs": abs, "copysign": math.copysign, "minnum": min, "maxnum": max, "minimum": min, "maximum": max,
    "floor": math.floor, "ceil": math.ceil, "trunc": math.trunc, "round": round, "roundeven": round,
    "rint": round, "nearbyint": round, "hypot": math.hypot, "fmod": math.fmod,
    "remainder": math.remainder, "erf": math.erf,
    "erfc": math.erfc, "fma": lambda a, b, c: a * b + c, "fmuladd": lambda a, b, c: a * b + c,
    "asinh": math.asinh, "acosh": math.acosh, "atanh": math.atanh, "ldexp": math.ldexp,
    "scalbn": math.ldexp, "scalbln": math.ldexp, "fdim": lambda x, y: max(x - y, 0.0),
    "frexp": lambda x, _exponent: math.frexp(x)[0],
    "remquo": lambda x, y, _quotient: math.remainder(x, y), **BESSEL,
    "lgamma": math.lgamma, "lgamma_r": lambda x, _sign: math.lgamma(x), "tgamma": math.gamma,
}
"""Reference implementations of every table entry."""

POINTS: dict[str, tuple] = {
    "acos": (0.3,), "asin": (-0.4,), "atan2": (0.7, -1.3), "pow": (1.7, 2.3), "powi": (1.3, 5),
    "log": (2.5,), "log2": (2.5,), "log10": (2.5,), "log1p": (0.5,), "sqrt": (2.0,), "cbrt": (3.0,),
    "copysign": (-1.5, 2.0), "minnum": (0.5, 1.5), "maxnum": (0.5, 1.5), "minimum": (2.5, 1.5),
    "maximum": (2.5, 1.5), "hypot": (3.0, 4.0), "fmod": (7.3, 2.1),
    "remainder": (7.3, 2.1), "fma": (1.5, -2.0, 0.5),
    "fmuladd": (1.5, -2.0, 0.5), "fabs": (-0.8,), "floor": (1.3,), "ceil": (1.3,), "trunc": (1.3,),
    "round": (1.3,), "roundeven": (1.3,), "rint": (1.3,), "nearbyint": (1.3,),
    "acosh": (1.7,), "ldexp": (0.6, 3), "scalbn": (0.6, -2), "scalbln": (0.6, 5), "fdim": (0.9, 0.4),
    "frexp": (-5.3, 0), "remquo": (7.3, 2.1, 0), "j1": (1.7,), "y0": (1.7,), "y1": (2.2,),
    "jn": (3, 1.4), "yn": (2, 2.3), "lgamma": (2.3,), "lgamma_r": (-1.4, 0), "tgamma": (-0.6,),
}


def _digamma(x: float) -> float:
    """lgamma's slope by a central difference: the table's formulas are checked here;
    the module's digamma itself against libm's lgamma in rev2/libm/gamma_functions.c."""
    h = 1e-6
    return (math.lgamma(x + h) - math.lgamma(x - h)) / (2 * h)


def evaluate(tree: object, args: tuple, result: float) -> float:
    """Evaluate a rule expression tree in Python (a model of `rules.emit`)."""
    match tree:
        case Num(value=v):
            return v
        case Var(name="r"):
            return result
        case Var(name=n):
            return args["xyz".index(n)]
        case Unary(operand=o):
            return -evaluate(o, args, result)
        case Bin(op=op, lhs=a, rhs=b):
            x, y = evaluate(a, args, result), evaluate(b, args, result)
            return {"+": x + y, "-": x - y, "*": x * y, "/": x / y if y else math.inf,
                    "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y, "==": x == y}[op]
        case Cond(cond=c, if_true=t, if_false=f):
            return evaluate(t, args, result) if evaluate(c, args, result) else evaluate(f, args, result)
        case Fn(name=name, args=fargs):
            vals = [evaluate(a, args, result) for a in fargs]
            return {"sin": math.sin, "cos": math.cos, "exp": math.exp, "log": math.log, "sqrt": math.sqrt,
                    "pow": math.pow, "powi": math.pow, "copysign": math.copysign, "sinh": math.sinh,
                    "cosh": math.cosh, "trunc": math.trunc, "roundeven": round, "digamma": _digamma,
                    **BESSEL}[name](*vals)
    raise AssertionError(tree)


def test_every_entry_has_a_reference() -> None:
    assert set(TABLE) == set(PY)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_partials_match_finite_differences(name: str) -> None:
    rule = TABLE[name]
    fn = PY[name]
    args = POINTS.get(name, (0.6,) * len(rule.partials))
    result = fn(*args)
    assert len(rule.partials) == len(args)
    for i, text in enumerate(rule.partials):
        if text is None:
            assert isinstance(args[i], int), f"{name}: only integer arguments may lack a derivative"
            continue
        h = 1e-6 * max(1.0, abs(args[i]))
        up = list(args)
        down = list(args)
        up[i] += h
        down[i] -= h
        fd = (fn(*up) - fn(*down)) / (2 * h)
        got = evaluate(rule.partial(i), args, result)
        assert got == pytest.approx(fd, rel=1e-6, abs=1e-8), f"d{name}/d{'xyz'[i]}: {text}"


@pytest.mark.parametrize(("x", "y", "dx", "dy"), [(0.0, 1.0, 1.0, 0.0), (0.0, 2.5, 0.0, 0.0),
                                                  (0.0, 0.0, 0.0, 0.0), (2.0, 0.0, 0.0, math.log(2.0))])
def test_pow_limits_at_zero(x: float, y: float, dx: float, dy: float) -> None:
    """pow at a zero base or exponent: the one-sided limits, never 0 * inf."""
    r = math.pow(x, y)
    assert evaluate(TABLE["pow"].partial(0), (x, y), r) == dx
    assert evaluate(TABLE["pow"].partial(1), (x, y), r) == pytest.approx(dy)


@pytest.mark.parametrize("x", [0.0, -0.0, 2.0, -2.0])
def test_fabs_and_sqrt_at_zero(x: float) -> None:
    """As Enzyme: fabs' is the sign of x, zeros included (fabs'(-0.0) = -1); sqrt'(0)
    is 0, so a guarded or unused sqrt(0) does not make a NaN derivative."""
    assert evaluate(TABLE["fabs"].partial(0), (x,), abs(x)) == math.copysign(1.0, x)
    if x >= 0:
        want = 0.0 if x == 0 else 0.5 / math.sqrt(x)
        assert evaluate(TABLE["sqrt"].partial(0), (x,), math.sqrt(x)) == want


def test_frexp_at_zero_is_one() -> None:
    assert evaluate(TABLE["frexp"].partial(0), (0.0, 0), 0.0) == 1.0


@pytest.mark.parametrize(("name", "key"), [
    ("sin", "sin"), ("sinf", "sin"), ("sinl", "sin"), ("llvm.sin.f64", "sin"), ("llvm.sin.v2f32", "sin"),
    ("llvm.fmuladd.f32", "fmuladd"), ("llvm.powi.f64.i32", "powi"), ("fmin", "minnum"), ("fmaxf", "maxnum"),
    ("llvm.maxnum.f64", "maxnum"), ("erff", "erf"), ("atan2f", "atan2"), ("hypot", "hypot"),
])
def test_names_resolve(name: str, key: str) -> None:
    assert rule_for(name) is TABLE[key]


@pytest.mark.parametrize("name", ["printf", "powi", "fmuladd", "foo", "sinx", "modf", "minnum"])
def test_unknown_and_intrinsic_only_names(name: str) -> None:
    assert rule_for(name) is None


def test_parse_precedence() -> None:
    assert parse("-x * x") == Bin("*", Unary("-", Var("x")), Var("x"))
    assert parse("1 + r * r") == Bin("+", Num(1.0), Bin("*", Var("r"), Var("r")))
    assert parse("x > 0 ? 1 : -1") == Cond(Bin(">", Var("x"), Num(0.0)), Num(1.0), Unary("-", Num(1.0)))


@pytest.mark.parametrize("bad", ["x +", "foo(x)", "w", "x $ y", "(x"])
def test_bad_rules_are_rejected(bad: str) -> None:
    with pytest.raises(RuleError):
        parse(bad)


@pytest.mark.parametrize(("name", "op"), [("__muldc3", "mul"), ("__mulsc3", "mul"), ("__divxc3", "div"),
                                          ("cexpf", "exp"), ("csqrt", "sqrt"), ("cabsf", "abs")])
def test_complex_names_resolve(name: str, op: str) -> None:
    rule = rule_for(name)
    assert rule is not None and rule.complex_op == op and not rule.partials


# ln 2 rounded once to each type (x86_fp80: M_LN2l; fp128: the quad nearest ln 2)
LN2_SPELLINGS = {
    "double": "0x3FE62E42FEFA39EF", "float": "0x3FE62E4300000000", "half": "0xH398C", "bfloat": "0xR3F31",
    "x86_fp80": "0xK3FFEB17217F7D1CF79AC", "fp128": "0xLF35793C7673007E63FFE62E42FEFA39E",
}


@pytest.mark.parametrize("kind", sorted(LN2_SPELLINGS))
def test_rule_numbers_are_rounded_once_to_the_calls_type(kind: str) -> None:
    from fractions import Fraction

    from enzc.ad.rules.dsl import typed_constant
    from enzc.ad.rules.table import LN2
    from enzc.ir.types import FloatType

    assert typed_constant(Fraction(LN2), FloatType(kind)).ref() == LN2_SPELLINGS[kind]


def test_integer_constants_become_float_constants_of_the_type() -> None:
    """2**24 + 1 has no float: the nearest (ties to even) is 2**24, not an invalid constant."""
    from fractions import Fraction

    from enzc.ad.rules.dsl import typed_constant
    from enzc.ir.types import FloatType, VectorType

    assert typed_constant(Fraction(2**24 + 1), FloatType("float")).ref() == "0x4170000000000000"
    assert typed_constant(Fraction(2**24 + 3), FloatType("float")).ref() == "0x4170000040000000"
    splat = typed_constant(Fraction(3), VectorType(2, FloatType("float")))
    assert splat.ref() == "splat (float 0x4008000000000000)"
