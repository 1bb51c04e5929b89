"""The digamma function ψ = Γ'/Γ, which derivatives of `lgamma` and `tgamma` need.

libm has no digamma, so the module gets an internal `__enzc_digamma.<type>`
(made once per float type) of straight-line code:

- reflection for x < 0: ψ(x) = ψ(1 - x) - π cos(πx) / sin(πx) (a pole, ±inf or
  NaN, at the non-positive integers, as Γ has);
- recurrence up to 10: ψ(y) = ψ(y + 1) - 1 / y, ten steps as selects (y ≥ 10 after);
- the asymptotic series at y ≥ 10: ln y - 1/(2y) - Σ B_2k / (2k y^2k), seven terms,
  whose first omitted term is below 5e-17 there.
"""

from __future__ import annotations

from fractions import Fraction

from enzc.ir.builder import IRBuilder, get_or_insert_function, new_block
from enzc.ir.module import Function, Module
from enzc.ir.types import FunctionType, Type
from enzc.ir.values import Value

PI = Fraction("3.14159265358979323846264338327950288")
SERIES = (Fraction(1, 12), Fraction(-1, 120), Fraction(1, 252), Fraction(-1, 240), Fraction(1, 132),
          Fraction(-691, 32760), Fraction(1, 12))
"""B_2k / (2k) for k = 1..7, each subtracted times y^-2k."""
SHIFTS = 10
LARGE = 10


def digamma_function(module: Module, ftype: Type, suffix: str, constant) -> Function:
    """`__enzc_digamma.<suffix>` of `ftype` in `module` (made on first use);
    `constant(value, type)` rounds an exact value to the type (`dsl.typed_constant`)."""
    name = f"__enzc_digamma.{suffix}"
    existing = module.functions.get(name)
    if existing is not None:
        return existing
    fn = module.add_function(name, FunctionType(ftype, (ftype,)), unique=False)
    fn.blocks = []  # a definition
    fn.linkage.words = ["internal"]
    b = IRBuilder()
    b.position_at_end(new_block(fn, "entry"))
    x = fn.args[0]

    def c(value: Fraction | int) -> Value:
        return constant(Fraction(value), ftype)

    def intrinsic(base: str, v: Value) -> Value:
        return b.call(get_or_insert_function(module, f"llvm.{base}.{suffix}", FunctionType(ftype, (ftype,))), [v],
                      f"psi.{base}")

    negative = b.fcmp("olt", x, c(0), "psi.neg")
    y = b.select(negative, b.fsub(c(1), x, "psi.refl"), x, "psi.y")
    acc = c(0)
    for _ in range(SHIFTS):
        small = b.fcmp("olt", y, c(LARGE), "psi.small")
        acc = b.select(small, b.fsub(acc, b.fdiv(c(1), y, "psi.inv"), "psi.acc"), acc, "psi.acc")
        y = b.select(small, b.fadd(y, c(1), "psi.y1"), y, "psi.y")
    inv2 = b.fdiv(c(1), b.fmul(y, y, "psi.y2"), "psi.inv2")
    series = c(0)
    for coefficient in reversed(SERIES):  # Horner in 1/y^2
        series = b.fmul(b.fadd(series, c(coefficient), "psi.s"), inv2, "psi.s")
    asymptotic = b.fsub(b.fsub(intrinsic("log", y), b.fdiv(c(Fraction(1, 2)), y, "psi.half"), "psi.a"),
                        series, "psi.a")
    value = b.fadd(asymptotic, acc, "psi.v")
    pix = b.fmul(c(PI), x, "psi.pix")
    cot = b.fdiv(b.fmul(c(PI), intrinsic("cos", pix), "psi.c"), intrinsic("sin", pix), "psi.cot")
    b.ret(b.select(negative, b.fsub(value, cot, "psi.r"), value, "psi"))
    return fn
