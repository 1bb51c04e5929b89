"""`llvm.modf` as the arithmetic it stands for, in a copy being differentiated.

Clang 22 turns libm's `modf(x, &ip)` into `{frac, int} = llvm.modf(x)`, a pair the
rule table (one result per call) cannot describe. Before differentiation the call
becomes `int = trunc(x)`, `frac = copysign(isinf(x) ? 0 : x - int, x)`: bit for
bit what `modf` returns (`x - trunc(x)` is exact; the sign of a zero fraction and
an infinite `x` are what the select and `copysign` restore; a NaN stays one), and
its derivative follows from the rules of `fsub`, `trunc` (0) and `copysign`: the
fraction moves with `x`, the integral part does not.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, get_or_insert_function
from enzc.ir.instructions import CallBase
from enzc.ir.module import Function, Module
from enzc.ir.types import FunctionType, StructType

from enzc.ad.rules.dsl import type_suffix


def lower_modf(module: Module, fn: Function) -> None:
    """Replace every `llvm.modf` call in `fn` by its arithmetic."""
    for call in [i for i in fn.instructions() if isinstance(i, CallBase)]:
        callee = call.called_function
        if callee is None or not (callee.name or "").startswith("llvm.modf.") or not isinstance(call.type, StructType):
            continue
        x = call.args[0]
        t = x.type
        suffix = type_suffix(t)
        unary = FunctionType(t, (t,))
        trunc = get_or_insert_function(module, f"llvm.trunc.{suffix}", unary)
        fabs = get_or_insert_function(module, f"llvm.fabs.{suffix}", unary)
        copysign = get_or_insert_function(module, f"llvm.copysign.{suffix}", FunctionType(t, (t, t)))
        b = IRBuilder()
        b.position_before(call)
        whole = b.call(trunc, [x], "modf.int")
        diff = b.fsub(x, whole, "modf.diff")
        infinite = b.fcmp("oeq", b.call(fabs, [x], "modf.abs"), b.const_fp(t, float("inf")), "modf.inf")
        frac = b.call(copysign, [b.select(infinite, b.const_zero(t), diff, "modf.frac0"), x], "modf.frac")
        pair = b.insert_value(b.insert_value(b.const_undef(call.type), frac, 0, "modf"), whole, 1, "modf")
        call.replace_all_uses_with(pair)
        call.erase()
