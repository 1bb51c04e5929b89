"""x86 vector intrinsics as generic IR, in a copy being differentiated.

Clang turns most SSE/AVX intrinsics into plain IR, but a few stay target calls
(`llvm.x86.*`) the rule table does not know: the horizontal sums of `_mm_hadd_pd`
and Eigen's AVX reductions (`predux` in every matrix-vector product built with
`-mavx` or `-march=native`), MAXPD/MINPD and their kin, and the variable blends.
Each becomes the IR that computes the same bits, whose derivative the engine
already knows; the user's function keeps its intrinsics.

- `hadd`/`hsub`: in each 128-bit lane, the sums (differences) of adjacent pairs of
  the first operand, then of the second: two shuffles and one `fadd`/`fsub`;
- `max`/`min` (`ps`, `pd`, 256- and 512-bit): the first operand's element where it
  is greater (less) than the second's, else the second's (NaNs and equal zeros
  included), as the instruction does; the scalar forms (`ss`/`sd`) on element 0,
  the others kept from the first operand; the 512-bit forms only with the current
  rounding mode (4);
- `addsub`: even elements `x - y`, odd ones `x + y` (Eigen's quaternion and complex
  products): an `fsub`, an `fadd` and a shuffle picking alternately;
- `blendv`: the second operand's element where the mask's sign bit is set;
- `cvtpd2ps`: `fptrunc` (both round to nearest: the program has not changed
  MXCSR's rounding, which `fenv.h` code would also hide from `fptrunc`).

Anything else `llvm.x86.*` stays an unknown external call: a located error where
it may be active.
"""

from __future__ import annotations

import re

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import CallBase
from enzc.ir.module import Function
from enzc.ir.types import FloatType, IntType, Type, VectorType
from enzc.ir.values import ConstantInt, Value

_HORIZONTAL = re.compile(r"llvm\.x86\.(?:sse3|avx)\.h(add|sub)\.p[sd](?:\.256)?")
_MIN_MAX = re.compile(r"llvm\.x86\.(?:sse2?|avx|avx512)\.(max|min)\.([ps])[sd](?:\.256|\.512)?")
_ADDSUB = re.compile(r"llvm\.x86\.(?:sse3|avx)\.addsub\.p[sd](?:\.256)?")
_BLEND = re.compile(r"llvm\.x86\.(?:sse41\.blendvp[sd]|avx\.blendv\.p[sd]\.256)")
_NARROW = frozenset({"llvm.x86.sse2.cvtpd2ps", "llvm.x86.avx.cvt.pd2.ps.256"})
_PREDICATE = {"max": "ogt", "min": "olt"}
_CURRENT_ROUNDING = 4


def lower_x86_intrinsics(fn: Function) -> None:
    """Replace the calls of `fn` to the x86 intrinsics above by generic IR."""
    for call in [i for i in fn.instructions() if isinstance(i, CallBase)]:
        callee = call.called_function
        name = (callee.name or "") if callee is not None else ""
        if not name.startswith("llvm.x86.") or not _float_vector(call.type):
            continue
        b = IRBuilder()
        b.position_before(call)
        result = _lower(b, name, call)
        if result is not None:
            call.replace_all_uses_with(result)
            call.erase()


def _lower(b: IRBuilder, name: str, call: CallBase) -> Value | None:
    if (found := _HORIZONTAL.fullmatch(name)) is not None and len(call.args) == 2:
        return _horizontal(b, found.group(1), *call.args)
    if (found := _MIN_MAX.fullmatch(name)) is not None and len(call.args) in (2, 3):
        if len(call.args) == 3 and not (isinstance(call.args[2], ConstantInt)
                                        and call.args[2].value == _CURRENT_ROUNDING):
            return None
        return _min_max(b, found.group(1), found.group(2) == "s", call.args[0], call.args[1])
    if _ADDSUB.fullmatch(name) is not None and len(call.args) == 2:
        return _add_sub(b, *call.args)
    if _BLEND.fullmatch(name) is not None and len(call.args) == 3:
        return _blend(b, *call.args)
    if name in _NARROW and len(call.args) == 1:
        return _narrow(b, call.args[0], call.type)
    return None


def _float_vector(t: object) -> bool:
    return isinstance(t, VectorType) and isinstance(t.element, FloatType)


def _horizontal(b: IRBuilder, op: str, x: Value, y: Value) -> Value:
    t = x.type
    assert isinstance(t, VectorType) and isinstance(t.element, FloatType)
    n = t.count
    per_lane = 16 // {"float": 4, "double": 8}[t.element.kind]
    left: list[int] = []
    right: list[int] = []
    for base in range(0, n, per_lane):
        for source in (0, n):  # the first operand's pairs, then the second's
            for i in range(per_lane // 2):
                left.append(source + base + 2 * i)
                right.append(source + base + 2 * i + 1)
    first = b.shuffle_vector(x, y, left, f"h{op}.even")
    second = b.shuffle_vector(x, y, right, f"h{op}.odd")
    return b.binop("f" + op, first, second, f"h{op}")


def _add_sub(b: IRBuilder, x: Value, y: Value) -> Value:
    n = x.type.count  # type: ignore[attr-defined]
    difference, total = b.fsub(x, y, "addsub.sub"), b.fadd(x, y, "addsub.add")
    return b.shuffle_vector(difference, total, [i + n * (i % 2) for i in range(n)], "addsub")


def _min_max(b: IRBuilder, which: str, scalar: bool, x: Value, y: Value) -> Value:
    if not scalar:
        return b.select(b.fcmp(_PREDICATE[which], x, y, f"{which}.keep"), x, y, which)
    x0, y0 = b.extract_element(x, 0, f"{which}.x"), b.extract_element(y, 0, f"{which}.y")
    chosen = b.select(b.fcmp(_PREDICATE[which], x0, y0, f"{which}.keep"), x0, y0, which)
    return b.insert_element(x, chosen, 0, which)


def _narrow(b: IRBuilder, x: Value, t: Type) -> Value:
    """CVTPD2PS: each double rounded to float; the 128-bit form fills the upper
    half of its result with zeros."""
    source = x.type
    assert isinstance(source, VectorType) and isinstance(t, VectorType)
    narrowed = b.fptrunc(x, VectorType(source.count, t.element), "cvt")
    if source.count == t.count:
        return narrowed
    zeros = b.const_zero(narrowed.type)
    return b.shuffle_vector(narrowed, zeros, list(range(t.count)), "cvt.wide")


def _blend(b: IRBuilder, x: Value, y: Value, mask: Value) -> Value:
    t = x.type
    assert isinstance(t, VectorType) and isinstance(t.element, FloatType)
    bits = IntType({"float": 32, "double": 64}[t.element.kind])
    as_ints = b.bitcast(mask, VectorType(t.count, bits), "blend.bits")
    negative = b.icmp("slt", as_ints, b.const_zero(as_ints.type), "blend.sign")
    return b.select(negative, y, x, "blend")
