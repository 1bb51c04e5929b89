"""Forward mode's tangents of floating-point arithmetic (`fadd fsub fmul fdiv frem
fneg`): the terms of the operands that have a tangent, nothing when none has one.

    d(a*b) = da*b + a*db,  d(a/c) = (da - (a/c) dc) / c,  d(a rem c) = da - trunc(a/c) dc
"""

from __future__ import annotations

from typing import Protocol

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import Instruction
from enzc.ir.values import Value

from enzc.ad.rules.dsl import intrinsic
from enzc.ad.synth.gradient_utils import GradientUtils


class Tangents(Protocol):
    """What this module needs of forward mode's visitor (`forward._Tangents`)."""

    gu: GradientUtils
    b: IRBuilder

    def tangent(self, v: Value) -> Value: ...

    def has_tangent(self, v: Value) -> bool: ...

    def new(self, v: Value) -> Value: ...


def _sum(fw: Tangents, terms: list[Value], name: str) -> Value | None:
    total: Value | None = None
    for t in terms:
        total = t if total is None else fw.b.fadd(total, t, name)
    return total


def _fadd(fw: Tangents, inst: Instruction) -> Value | None:
    return _sum(fw, [fw.tangent(o) for o in inst.operands[:2] if fw.has_tangent(o)], "d.add")


def _fsub(fw: Tangents, inst: Instruction) -> Value | None:
    a, c = inst.operand(0), inst.operand(1)
    if fw.has_tangent(a) and fw.has_tangent(c):
        return fw.b.fsub(fw.tangent(a), fw.tangent(c), "d.sub")
    if fw.has_tangent(a):
        return fw.tangent(a)
    return fw.b.fneg(fw.tangent(c), "d.sub") if fw.has_tangent(c) else None


def _fmul(fw: Tangents, inst: Instruction) -> Value | None:
    a, c = inst.operand(0), inst.operand(1)
    terms = []
    if fw.has_tangent(a):
        terms.append(fw.b.fmul(fw.tangent(a), fw.new(c), "d.mul"))
    if fw.has_tangent(c):
        terms.append(fw.b.fmul(fw.new(a), fw.tangent(c), "d.mul"))
    return _sum(fw, terms, "d.mul")


def _fdiv(fw: Tangents, inst: Instruction) -> Value | None:
    """d(a/c) = (da - (a/c) dc) / c."""
    a, c = inst.operand(0), inst.operand(1)
    b = fw.b
    num = fw.tangent(a) if fw.has_tangent(a) else None
    if fw.has_tangent(c):
        q = b.fmul(fw.new(inst), fw.tangent(c), "d.q")
        num = b.fsub(num, q, "d.num") if num is not None else b.fneg(q, "d.num")
    return b.fdiv(num, fw.new(c), "d.div") if num is not None else None


def _frem(fw: Tangents, inst: Instruction) -> Value | None:
    """d(a rem c) = da - trunc(a/c) dc."""
    a, c = inst.operand(0), inst.operand(1)
    b = fw.b
    d = fw.tangent(a) if fw.has_tangent(a) else None
    if fw.has_tangent(c):
        q = b.fdiv(fw.new(a), fw.new(c), "q")
        tq = b.call(intrinsic(fw.gu.module, "trunc", q.type, []), [q], "q.trunc")
        term = b.fmul(tq, fw.tangent(c), "d.rem")
        d = b.fsub(d, term, "d.rem") if d is not None else b.fneg(term, "d.rem")
    return d


def _fneg(fw: Tangents, inst: Instruction) -> Value | None:
    return fw.b.fneg(fw.tangent(inst.operand(0)), "d.neg") if fw.has_tangent(inst.operand(0)) else None


ARITHMETIC_TANGENTS = {
    "fadd": _fadd,
    "fsub": _fsub,
    "fmul": _fmul,
    "fdiv": _fdiv,
    "frem": _frem,
    "fneg": _fneg,
}
"""Opcode -> tangent handler, merged into forward mode's table."""
