"""Math calls with two results, as one-result calls the rule table knows, in a
copy being differentiated.

`sincos(x, &s, &c)` (GNU) stores `sin(x)` and `cos(x)`: it becomes those two calls
and stores (glibc computes all three with the same kernels; `synth/sincos.py` fuses
the pair into one `sincos` call again after differentiation).

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
from enzc.ir.types import FunctionType, PointerType, StructType

from enzc.ad.rules.dsl import type_suffix


SINCOS = {"sincos": ("sin", "cos"), "sincosf": ("sinf", "cosf")}


def lower_pair_results(module: Module, fn: Function) -> None:
    """Replace every `llvm.modf` and `sincos` call in `fn` by its one-result form."""
    for call in [i for i in fn.instructions() if isinstance(i, CallBase)]:
        callee = call.called_function
        name = (callee.name or "") if callee is not None else ""
        if name.startswith("llvm.modf.") and isinstance(call.type, StructType):
            _lower_modf(module, call)
        elif name in SINCOS and len(call.args) == 3 and isinstance(call.args[1].type, PointerType):
            _lower_sincos(module, call, *SINCOS[name])


def _lower_sincos(module: Module, call: CallBase, sin_name: str, cos_name: str) -> None:
    x, sin_at, cos_at = call.args
    unary = FunctionType(x.type, (x.type,))
    b = IRBuilder()
    b.position_before(call)
    b.store(b.call(get_or_insert_function(module, sin_name, unary), [x], "sincos.sin"), sin_at)
    b.store(b.call(get_or_insert_function(module, cos_name, unary), [x], "sincos.cos"), cos_at)
    call.erase()


def _lower_modf(module: Module, call: CallBase) -> None:
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
