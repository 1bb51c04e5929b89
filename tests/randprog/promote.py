"""The same random function with every float promoted to double: the reference a
float function is judged against when its float checks fail (oracle.judge_promoted).

The generator writes float code in three ways only: the type `float` (declarations,
casts, array and function-pointer types), float literals (`0.44f`) and the float
libm functions (`sinf`); each becomes its double counterpart, so the promoted
function computes the same mathematics without float's rounding.
"""

from __future__ import annotations

import dataclasses
import re

from .generator import RandomFunction

LIBM = ("sin cos tan exp exp2 expm1 log log1p log2 log10 sqrt cbrt pow hypot atan atan2 "
        "asin acos sinh cosh tanh asinh acosh atanh erf erfc fma fabs fmax fmin").split()
_FLOAT_LIBM = re.compile(r"\b(" + "|".join(sorted(LIBM, key=len, reverse=True)) + r")f\b")
_FLOAT_LITERAL = re.compile(r"(?<![\w.])(\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)[fF]\b")
_FLOAT_TYPE = re.compile(r"\bfloat\b")


def promote_code(code: str) -> str:
    """C code with float, float literals and float libm made double."""
    code = _FLOAT_LIBM.sub(r"\1", code)
    code = _FLOAT_LITERAL.sub(r"\1", code)
    return _FLOAT_TYPE.sub("double", code)


def promote(fn: RandomFunction) -> RandomFunction:
    """The function promoted to double, judged with the double tolerances."""
    sig = dataclasses.replace(fn.signature, precision="double")
    return dataclasses.replace(fn, code=promote_code(fn.code), signature=sig)
