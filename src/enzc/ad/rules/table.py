"""Derivative rules of libm functions and LLVM math intrinsics: one entry each.

`D(e1, e2, ...)` gives the partial derivative with respect to each argument as an
expression over the arguments `x`, `y`, `z` (in order) and the result `r`; `None`
marks an argument without a derivative (an integer exponent). Expressions use
`+ - * /`, unary `-`, comparisons with `c ? a : b`, numbers, and the functions of
`dsl.FUNCTIONS` and `dsl.LIBM_FUNCTIONS`. A name covers its `float`/`long double`
libm variants (`sinf`, `sinl`) and every type of the intrinsic (`llvm.sin.f64`,
`llvm.sin.v2f32`).
"""

from __future__ import annotations

from enzc.ad.rules.complex import OPERATIONS
from enzc.ad.rules.dsl import D, Rule

LN2 = "0.693147180559945309417232121458176568"
LN10 = "2.30258509299404568401799145468436421"
TWO_OVER_SQRT_PI = "1.12837916709551257389615890312154517"
"""36 digits: exact enough for fp128 (113 bits); each use is rounded once to its type."""

TABLE: dict[str, Rule] = {
    # 0 at 0 (as Enzyme): sqrt(x*x + y*y) at the origin, or a guarded sqrt(0) whose
    # result is not used, gets a zero derivative instead of 0 * inf = NaN
    "sqrt": D("x == 0 ? 0 : 0.5 / r"),
    "cbrt": D("r / (3 * x)"),
    # at x = 0 (y > 0) x^y log x -> 0, and x^0 is constant: 0, not 0 * inf = NaN
    "pow": D("y > 0 ? y * pow(x, y - 1) : (y < 0 ? y * pow(x, y - 1) : 0)",
             "x > 0 ? r * log(x) : (x < 0 ? r * log(x) : 0)"),
    "powi": D("y * powi(x, y - 1)", None),
    "exp": D("r"),
    "exp2": D(f"r * {LN2}"),
    "exp10": D(f"r * {LN10}"),
    "expm1": D("r + 1"),
    "log": D("1 / x"),
    "log2": D(f"1 / (x * {LN2})"),
    "log10": D(f"1 / (x * {LN10})"),
    "log1p": D("1 / (x + 1)"),
    "sin": D("cos(x)"),
    "cos": D("-sin(x)"),
    "tan": D("1 + r * r"),
    "asin": D("1 / sqrt(1 - x * x)"),
    "acos": D("-1 / sqrt(1 - x * x)"),
    "atan": D("1 / (1 + x * x)"),
    "atan2": D("y / (x * x + y * y)", "-x / (x * x + y * y)"),
    "asinh": D("1 / sqrt(x * x + 1)"),
    "acosh": D("1 / sqrt(x * x - 1)"),
    "atanh": D("1 / (1 - x * x)"),
    "ldexp": D("pow(2, y)", None),
    "scalbn": D("pow(2, y)", None),
    "scalbln": D("pow(2, y)", None),
    # frexp scales x by 2^-e exactly, so r / x is that power of two; at 0 (e = 0) it is 1
    "frexp": D("x > 0 ? r / x : (x < 0 ? r / x : 1)", None),
    "fdim": D("x > y ? 1 : 0", "x > y ? -1 : 0"),
    "sinh": D("cosh(x)"),
    "cosh": D("sinh(x)"),
    "tanh": D("1 - r * r"),
    # the sign of a zero tells the side it was approached from (Enzyme: fabs(-0.0)' = -1)
    "fabs": D("copysign(1, x)"),
    "copysign": D("copysign(1, x) * copysign(1, y)", "0"),
    "minnum": D("x <= y ? 1 : 0", "x <= y ? 0 : 1"),
    "maxnum": D("x >= y ? 1 : 0", "x >= y ? 0 : 1"),
    "minimum": D("x <= y ? 1 : 0", "x <= y ? 0 : 1"),
    "maximum": D("x >= y ? 1 : 0", "x >= y ? 0 : 1"),
    "floor": D("0"),
    "ceil": D("0"),
    "trunc": D("0"),
    "round": D("0"),
    "roundeven": D("0"),
    "rint": D("0"),
    "nearbyint": D("0"),
    "hypot": D("x / r", "y / r"),
    "fmod": D("1", "-trunc(x / y)"),
    # remainder rounds the quotient to nearest, ties to even
    # the gamma function: d lgamma = digamma, d tgamma = tgamma * digamma (libm has no
    # digamma: an internal function, rules/digamma.py); lgamma_r's sign pointer has none
    "lgamma": D("digamma(x)"),
    "lgamma_r": D("digamma(x)", None),
    "tgamma": D("r * digamma(x)"),
    # Bessel functions of the first and second kind (glibc's j0, y1, jn, ...)
    "j0": D("-j1(x)"),
    "j1": D("x == 0 ? 0.5 : j0(x) - r / x"),
    "jn": D(None, "(jn(x - 1, y) - jn(x + 1, y)) / 2"),
    "y0": D("-y1(x)"),
    "y1": D("y0(x) - r / x"),
    "yn": D(None, "(yn(x - 1, y) - yn(x + 1, y)) / 2"),
    "remainder": D("1", "-roundeven(x / y)"),
    # remquo: remainder's value, and low bits of the quotient written through z (an int)
    "remquo": D("1", "-roundeven(x / y)", None),
    "erf": D(f"{TWO_OVER_SQRT_PI} * exp(-x * x)"),
    "erfc": D(f"-{TWO_OVER_SQRT_PI} * exp(-x * x)"),
    "fma": D("y", "x", "1"),
    "fmuladd": D("y", "x", "1"),
}

ALIASES: dict[str, str] = {
    "fmin": "minnum",
    "fmax": "maxnum",
    "minimumnum": "minnum",
    "maximumnum": "maxnum",
}
"""libm and intrinsic spellings of the same function."""

INTRINSIC_ONLY = frozenset({"fmuladd", "powi", "minnum", "maxnum", "minimum", "maximum", "minimumnum", "maximumnum"})
"""Table keys that name intrinsics only; a C function of that name is the user's own."""


def rule_for(name: str) -> Rule | None:
    """The rule for a libm or intrinsic name (`sin`, `sinf`, `llvm.sin.f32`), if any."""
    if name in OPERATIONS:
        return Rule((), complex_op=OPERATIONS[name])
    if name.startswith("llvm."):
        base = name[5:].split(".")[0]
        return TABLE.get(ALIASES.get(base, base))
    for candidate in (name, name[:-1] if name[-1:] in ("f", "l") else None):
        if candidate is not None and candidate not in INTRINSIC_ONLY:
            key = ALIASES.get(candidate, candidate)
            if key in TABLE:
                return TABLE[key]
    return None


def has_rule(name: str) -> bool:
    """Whether calls of `name` are differentiated by the table (what the analyses
    classify as a `CallKind.RULE` call: pure math)."""
    return rule_for(name) is not None
