"""Inline assembly whose meaning is known exactly, rewritten as IR in a private copy
before differentiation (the user's function keeps its asm).

Eigen 3.4 writes a few packet operations as one x86 instruction in inline asm:

- its SSE `pmax`/`pmin`, when it takes clang for GCC 4.2:
  `asm("maxpd %[a], %[res]" : [res] "+x" (res) : [a] "x" (a))` with `res = b`
  (`Eigen/src/Core/arch/SSE/PacketMath.h`); Eigen's `SelfAdjointEigenSolver`
  scales its matrix by the largest absolute entry this way;
- its AVX `pmadd` with FMA (`-march=native`, `-mfma`) under clang:
  `asm("vfmadd231pd %[a], %[b], %[c]" : [c] "+v" (res) : [a] "v" (a), [b] "v" (b))`
  (`Eigen/src/Core/arch/AVX/PacketMath.h`), in every matrix product.

Clang spells the second

    call <4 x double> asm "vfmadd231pd $1, $2, $0", "=x,x,x,0,~{dirflag},~{fpsr},~{flags}"(<4 x double> %a, <4 x double> %b, <4 x double> %c)

The template's operands are AT&T's (the destination last); `$0` is the output,
whose incoming value is the input constrained `"0"`. In Intel's order (op1 the
destination):

- MAXPD/MAXPS (`maxpd op2` into op1; AVX `vmaxpd op1 = op2, op3`) keep the first
  source's lane where it is greater than the second's and take the second's
  otherwise (NaN on either side and equal zeros included): `select(fcmp ogt)`,
  MIN with `olt`;
- VFMADD/VFMSUB/VFNMADD/VFNMSUB with 132, 213 or 231 name which operands multiply
  (op1*op3 + op2, op2*op1 + op3, op2*op3 + op1); each is `llvm.fma` with its
  operands negated as the name says (negation is exact, so the value is the
  instruction's bit for bit). Scalar forms (`ss`/`sd`) only on scalar values.

Any other asm stays a compile-time error where it may be active.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from enzc.ir.builder import IRBuilder, get_or_insert_function
from enzc.ir.instructions import Call
from enzc.ir.module import Function, Module
from enzc.ir.types import FloatType, FunctionType, Type, VectorType
from enzc.ir.values import InlineAsm, Value

from enzc.ad.rules.dsl import type_suffix

_SPELLING = re.compile(r'asm (?:sideeffect )?"([^"]*)", "([^"]*)"')
_OPERAND = re.compile(r"\$(\d+)|\$\{(\d+)\}")
_MINMAX = re.compile(r"(v?)(max|min)(p)([sd])")
_FMA = re.compile(r"v(fn?m(?:add|sub))(132|213|231)([ps])([sd])")
_PREDICATE = {"max": "ogt", "min": "olt"}
_FMA_ORDER = {"132": (0, 2, 1), "213": (1, 0, 2), "231": (1, 2, 0)}
"""Which Intel operands are (a, b, c) of `a * b + c`."""
_FMA_SIGNS = {"fmadd": (False, False), "fmsub": (False, True), "fnmadd": (True, False), "fnmsub": (True, True)}
"""Whether the product and the addend are negated."""


@dataclass(frozen=True)
class _Asm:
    """One instruction of inline asm: its mnemonic and operands in Intel's order
    (None: the output, where no input gives its incoming value)."""

    mnemonic: str
    operands: tuple[Value | None, ...]


def lower_known_asm(module: Module, fn: Function) -> None:
    """Replace the calls of `fn` to inline assembly this module knows by IR."""
    for call in [i for i in fn.instructions() if isinstance(i, Call) and isinstance(i.callee, InlineAsm)]:
        asm = _parse(call)
        if asm is None or not _floats_alike(call):
            continue
        builder = IRBuilder()
        builder.position_before(call)
        result = _min_max(builder, asm, call.type) or _fma(module, builder, asm, call.type)
        if result is None:
            continue
        call.replace_all_uses_with(result)
        call.erase()


def _parse(call: Call) -> _Asm | None:
    """The instruction of a one-instruction, one-output asm whose operands are all
    registers, or None."""
    found = _SPELLING.fullmatch(call.callee.spelling)  # type: ignore[attr-defined]
    if found is None:
        return None
    template, constraints = found.groups()
    words = template.strip().split(None, 1)
    if len(words) != 2 or any(c in template for c in "\\;(%"):
        return None  # several instructions (`\0A`, `;`), memory operands, named registers
    codes = [c for c in constraints.split(",") if not c.startswith("~")]
    outputs = [c for c in codes if c.startswith("=")]
    inputs = codes[len(outputs):]
    if len(outputs) != 1 or len(inputs) != len(call.args) or any(c.startswith("=") for c in inputs):
        return None
    tied = [i for i, c in enumerate(inputs) if c == "0"]
    values: list[Value | None] = [call.args[tied[0]] if tied else None, *call.args]
    operands: list[Value | None] = []
    for text in words[1].split(","):
        match = _OPERAND.fullmatch(text.strip())
        number = int(match.group(1) or match.group(2)) if match is not None else len(values)
        if number >= len(values):
            return None
        operands.append(values[number])
    return _Asm(words[0], tuple(reversed(operands)))


def _floats_alike(call: Call) -> bool:
    """The result and every input have one floating-point (vector) type."""
    t = call.type
    element = t.element if isinstance(t, VectorType) else t
    return isinstance(element, FloatType) and all(a.type == t for a in call.args)


def _element_fits(t: Type, size: str, packed: str) -> bool:
    """`s`/`d` is the element kind, and a scalar form (`ss`/`sd`) acts on a scalar."""
    element = t.element if isinstance(t, VectorType) else t
    kind = {"s": "float", "d": "double"}[size]
    return isinstance(element, FloatType) and element.kind == kind and (packed == "p" or element is t)


def _min_max(builder: IRBuilder, asm: _Asm, t: Type) -> Value | None:
    found = _MINMAX.fullmatch(asm.mnemonic)
    if found is None or not _element_fits(t, found.group(4), found.group(3)):
        return None
    vex, which = found.group(1), found.group(2)
    if len(asm.operands) != (3 if vex else 2):
        return None
    first, second = asm.operands[-2:]
    if first is None or second is None:
        return None
    keep = builder.fcmp(_PREDICATE[which], first, second, "asm.keep")
    return builder.select(keep, first, second, f"asm.{which}")


def _fma(module: Module, builder: IRBuilder, asm: _Asm, t: Type) -> Value | None:
    found = _FMA.fullmatch(asm.mnemonic)
    if found is None or len(asm.operands) != 3 or not _element_fits(t, found.group(4), found.group(3)):
        return None
    a, b, c = (asm.operands[i] for i in _FMA_ORDER[found.group(2)])
    if a is None or b is None or c is None:
        return None
    negate_product, negate_addend = _FMA_SIGNS[found.group(1)]
    if negate_product:
        a = builder.fneg(a, "asm.neg")
    if negate_addend:
        c = builder.fneg(c, "asm.neg")
    fma = get_or_insert_function(module, f"llvm.fma.{type_suffix(t)}", FunctionType(t, (t, t, t)))
    return builder.call(fma, [a, b, c], "asm.fma")
