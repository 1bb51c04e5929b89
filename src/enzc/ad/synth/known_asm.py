"""Inline assembly whose meaning is known exactly, rewritten as IR in a private copy
before differentiation (the user's function keeps its asm).

Eigen 3.4 takes clang for GCC 4.2 and computes its SSE `pmax`/`pmin` with
`asm("maxpd %[a], %[res]" : [res] "+x" (res) : [a] "x" (a))` where `res = b`
(`Eigen/src/Core/arch/SSE/PacketMath.h`), which clang spells

    call <2 x double> asm "maxpd $1, $0", "=x,x,0,~{dirflag},~{fpsr},~{flags}"(<2 x double> %a, <2 x double> %b)

x86's MAXPD/MAXPS keep a destination lane that is greater than the source's and
take the source's otherwise (NaN on either side and equal zeros included), so the
call is `select(fcmp ogt %b, %a), %b, %a` lane by lane, and MINPD/MINPS the same
with `olt`; the AVX forms (`vmaxpd $1, $2, $0`, "=x,x,x") compare their second
input with their first the same way. Eigen's `SelfAdjointEigenSolver` scales its
matrix by the largest absolute entry this way. Any other asm stays a
compile-time error where it may be active.
"""

from __future__ import annotations

import re

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import Call
from enzc.ir.module import Function
from enzc.ir.types import FloatType, VectorType
from enzc.ir.values import InlineAsm

_CLOBBERS = r"(?:,~\{(?:dirflag|fpsr|flags)\})*"
_SSE = re.compile(r'asm "(max|min)p[sd] \$1, \$0", "=x,x,0' + _CLOBBERS + '"')
_AVX = re.compile(r'asm "v(max|min)p[sd] \$1, \$2, \$0", "=x,x,x' + _CLOBBERS + '"')
_PREDICATE = {"max": "ogt", "min": "olt"}


def lower_known_asm(fn: Function) -> None:
    """Replace the calls of `fn` to inline assembly this module knows by IR."""
    for call in [i for i in fn.instructions() if isinstance(i, Call) and isinstance(i.callee, InlineAsm)]:
        spelling = call.callee.spelling  # type: ignore[attr-defined]
        found = _SSE.fullmatch(spelling) or _AVX.fullmatch(spelling)
        if found is None or len(call.args) != 2 or not _float_vector(call):
            continue
        a, b = call.args  # $1 and the destination's input: `res = b` (SSE), `$2` (AVX)
        builder = IRBuilder()
        builder.position_before(call)
        keep = builder.fcmp(_PREDICATE[found.group(1)], b, a, "asm.keep")
        chosen = builder.select(keep, b, a, call.name or "asm.minmax")
        call.replace_all_uses_with(chosen)
        call.erase()


def _float_vector(call: Call) -> bool:
    t = call.type
    return isinstance(t, VectorType) and isinstance(t.element, FloatType) \
        and all(arg.type == t for arg in call.args)
