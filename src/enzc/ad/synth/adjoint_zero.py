"""The value an adjoint starts from before anything is added to it."""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.types import FloatType, Type, VectorType
from enzc.ir.values import ConstantAggregate, ConstantFP, Value

_SIGNED_ZERO_KINDS = ("half", "float", "double")
"""Float kinds whose constants are written with a sign (`ConstantFP.ref`)."""


def adjoint_zero(ty: Type) -> Value:
    """The empty adjoint of a value of type `ty`: -0.0 for floating scalars and vectors.

    -0.0 is the exact identity of `fadd` (-0.0 + x is x for every x, +0.0 included),
    so LLVM folds the first accumulation into an adjoint away; +0.0 + x is not x for
    x = -0.0, and without `nsz` the add stays in every reverse loop iteration."""
    scalar = ty.element if isinstance(ty, VectorType) else ty
    if not isinstance(scalar, FloatType) or scalar.kind not in _SIGNED_ZERO_KINDS \
            or isinstance(ty, VectorType) and ty.scalable:
        return IRBuilder.const_zero(ty)
    zero = ConstantFP(scalar, -0.0)
    return ConstantAggregate(ty, [zero] * ty.count) if isinstance(ty, VectorType) else zero
