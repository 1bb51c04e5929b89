"""Floating-point vector reductions as scalar operations, in a copy being
differentiated.

`llvm.vector.reduce.{fadd,fmul,fmax,fmin,fmaximum,fminimum}` reach the engine from
clang's `__builtin_reduce_max`/`_min` on float vectors, from the SLP vectorizer's
horizontal reductions under `-ffast-math`, and from IR given to enzcc. Each
becomes the chain it stands for: the lanes extracted and combined in order
(`fadd`/`fmul` from the start value; `llvm.maxnum`/`minnum`/`maximum`/`minimum`,
whose semantics the reductions are defined by), keeping the call's fast-math
flags. The ordered chain is one of the evaluation orders a `reassoc` reduction
allows, and the exact one an ordered reduction means. The engine knows every
link's derivative; the user's function keeps its reductions.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, get_or_insert_function
from enzc.ir.instructions import CallBase
from enzc.ir.module import Function, Module
from enzc.ir.types import FloatType, FunctionType, VectorType
from enzc.ir.values import Value

from enzc.ad.rules.dsl import type_suffix

_ARITHMETIC = frozenset({"fadd", "fmul"})
"""Reductions with a start value, named as the instruction combining two lanes."""
_EXTREMA = {"fmax": "maxnum", "fmin": "minnum", "fmaximum": "maximum", "fminimum": "minimum"}
"""Reductions of the lanes alone: the intrinsic combining two lanes."""
_PREFIX = "llvm.vector.reduce."


def lower_vector_reductions(module: Module, fn: Function) -> None:
    """Replace each floating-point `llvm.vector.reduce.*` call of `fn` by its chain."""
    for call in [i for i in fn.instructions() if isinstance(i, CallBase)]:
        callee = call.called_function
        name = (callee.name or "") if callee is not None else ""
        if not name.startswith(_PREFIX) or not isinstance(call.type, FloatType):
            continue
        kind = name[len(_PREFIX):].split(".")[0]
        vector = call.args[-1] if call.args else None
        if kind not in _ARITHMETIC and kind not in _EXTREMA or not _fixed_width(vector):
            continue
        b = IRBuilder()
        b.position_before(call)
        lanes = [b.extract_element(vector, k) for k in range(vector.type.count)]  # type: ignore[union-attr]
        if kind in _ARITHMETIC:
            result = call.args[0]
            for lane in lanes:
                result = b.binop(kind, result, lane, flags=call.flags)
        else:
            pick = _intrinsic(module, _EXTREMA[kind], call.type)
            result = lanes[0]
            for lane in lanes[1:]:
                result = b.call(pick, [result, lane], flags=call.flags)
        call.replace_all_uses_with(result)
        call.erase()


def _fixed_width(vector: Value | None) -> bool:
    """A vector of a known number of lanes (not `<vscale x N x T>`)."""
    return vector is not None and isinstance(vector.type, VectorType) and not vector.type.scalable


def _intrinsic(module: Module, name: str, t: FloatType) -> Function:
    return get_or_insert_function(module, f"llvm.{name}.{type_suffix(t)}", FunctionType(t, (t, t)))
