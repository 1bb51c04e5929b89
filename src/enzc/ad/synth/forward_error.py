"""Forward error estimation (`__enzyme_error_estimate`, Enzyme's ForwardModeError).

`fwderror_<f>` is forward mode (`forward.py`) in which the value beside each active
floating-point value is an error estimate instead of a tangent. Each rounding
operation `r = op(x_1, ..., x_n)` (`fadd fsub fmul fdiv frem fneg`, and calls with a
rule in the rule table: libm, intrinsics) gives its result the error

    err(r) = max(ulp(r), sum_i |dr/dx_i * (err(x_i) * x_i / r)|)

over the operands with an error: the atomic condition numbers of Yi et al.,
"Detecting floating-point errors via atomic conditions" (POPL 2020), as Enzyme
emits them. `err(x_i) * x_i / r` is operand i's error taken relative to the result,
the partial carries it through the operation, absolute values make contributions
add instead of cancel. `ulp(r) = |r - r'|`, with `r'` the value whose lowest
significand bit is flipped: one unit in the last place of `r` in its own type
(2^-52 |r| rounded down to a power of two for a double, 2^-23 for a float), an
absolute floor, as in Enzyme. Everything else moves errors as forward mode moves
tangents: loads and stores through shadows, phis, selects, aggregate and vector
moves, `fpext`/`fptrunc` (converted, no ulp added), `memcpy`; calls of defined
functions call their own `fwderror_` derivative.

Where the formula has no value (a result that is exactly 0 or has underflowed to 0:
`err * x / 0` is infinite or NaN, times a partial of 0 is NaN) the error is NaN,
and so is every error computed from it: a NaN sum is kept, where `maxnum` alone
would drop it and leave `ulp(0)`, a tiny number that would read as "exact"
(`exp(-a)` underflowing to 0 with `a` carrying an error). Enzyme emits
`maxnum` with fast-math flags, undefined on a NaN; its builds print NaN there too.

The optional logger: when the program has a function `enzymeLogError(double res,
double err, const char *opcode, const char *callee, const char *module, const char
*function, const char *block)`, each of those operations calls it with its result
and error (as doubles; once per lane of a vector) and the names Enzyme passes:
`"fmul (3)"` (opcode, index in its block), the callee or `"<N/A>"`, the module's
source file name, `"f (k)"`, `"block (k)"` (indices in the module and function).
"""

from __future__ import annotations

import hashlib
from typing import Protocol

from enzc.ir.builder import IRBuilder, get_or_insert_function
from enzc.ir.instructions import AtomicRMW, CallBase, Instruction
from enzc.ir.module import Function, Module
from enzc.ir.types import DOUBLE, I8, PTR, VOID, ArrayType, FloatType, FunctionType, IntType, Type, VectorType
from enzc.ir.values import ConstantInt, ConstantSplat, ConstantString, Value

from enzc.ad.analysis.activity import carries_float
from enzc.ad.analysis.annotations import forward_derivative_of
from enzc.ad.analysis.calls import CallKind, callee_name, classify
from enzc.ad.analysis.openmp import is_fork
from enzc.ad.rules.dsl import EmitEnv, Rule, emit_scaled, intrinsic, type_suffix
from enzc.ad.rules.table import has_rule
from enzc.ad.synth.gradient_utils import GradientUtils
from enzc.ad.synth.mpi_calls import is_mpi

LOGGER = "enzymeLogError"
"""The function the program may define to see every operation's result and error."""

_LOGGER_TYPE = FunctionType(VOID, (DOUBLE, DOUBLE, PTR, PTR, PTR, PTR, PTR))
"""Its parameters (the return type is not looked at)."""

HINT_ERROR = ("__enzyme_error_estimate handles floating-point arithmetic, libm and math intrinsics, "
              "memory moves and calls of functions with bodies; estimate the rest separately")


class Errors(Protocol):
    """What this module needs of forward mode's visitor (`forward._Tangents`)."""

    gu: GradientUtils
    b: IRBuilder

    def tangent(self, v: Value) -> Value: ...

    def has_tangent(self, v: Value) -> bool: ...

    def new(self, v: Value) -> Value: ...


ARITHMETIC = frozenset({"fadd", "fsub", "fmul", "fdiv", "frem", "fneg"})
"""The instructions whose result gets an error of its own (`arithmetic_error`)."""


def unsupported(gu: GradientUtils, inst: Instruction, what: str) -> Exception:
    """The located error for a construct whose tangent code has no error form."""
    return gu.error(inst, f"__enzyme_error_estimate does not estimate the error of {what}", HINT_ERROR)


def reject_in_error_mode(gu: GradientUtils, inst: Instruction) -> None:
    """Constructs forward mode differentiates by code that computes tangents, not
    errors (a user's forward derivative, BLAS, MPI, OpenMP, atomics): a located error
    instead of a tangent passed off as an error estimate."""
    active = gu.activity.is_active_instruction(inst)
    if isinstance(inst, AtomicRMW) and carries_float(inst.type) and gu.activity.has_shadow(inst.ptr):
        raise unsupported(gu, inst, f"an atomic '{inst.operation}' (OpenMP atomics)")
    if not isinstance(inst, CallBase):
        return
    name = callee_name(inst) or "an indirect callee"
    if is_fork(inst):
        raise unsupported(gu, inst, "an OpenMP parallel region")
    if is_mpi(inst) and active:
        raise unsupported(gu, inst, f"the MPI call '{name}'")
    if not active:
        return
    kind = classify(inst, has_rule)
    if kind is CallKind.CUSTOM or forward_derivative_of(gu.module, inst.called_function) is not None:
        raise unsupported(gu, inst, f"'{name}', which has a user derivative (registered derivatives compute "
                                    "tangents or adjoints, not error estimates)")
    if kind is CallKind.BLAS:
        raise unsupported(gu, inst, f"the BLAS call '{name}'")


def arithmetic_error(fw: Errors, inst: Instruction) -> Value:
    """The error of `fadd fsub fmul fdiv frem fneg`, right after its clone."""
    b, r = fw.b, fw.new(inst)
    operands = inst.operands[:1] if inst.opcode == "fneg" else inst.operands[:2]
    terms = []
    for i, x in enumerate(operands):
        if not fw.has_tangent(x):
            continue
        relative = _relative(fw, x, r)
        match inst.opcode, i:
            case "fmul", _:
                term = b.fmul(relative, fw.new(operands[1 - i]), "err.mul")
            case "fdiv", 0:
                term = b.fdiv(relative, fw.new(operands[1]), "err.div")
            case "fdiv", 1:  # d(a/c)/dc = -(1/c) (a/c)
                term = b.fmul(b.fdiv(relative, fw.new(operands[1]), "err.div"), r, "err.div")
            case "frem", 1:  # d(a rem c)/dc = -trunc(a/c)
                q = b.fdiv(fw.new(operands[0]), fw.new(operands[1]), "q")
                term = b.fmul(relative, b.call(intrinsic(fw.gu.module, "trunc", q.type, []), [q], "q.trunc"),
                              "err.rem")
            case _:  # fadd, fsub, fneg, frem's dividend: the partial is +-1
                term = relative
        terms.append(_fabs(fw, term))
    return _finish(fw, inst, r, terms)


def rule_call_error(fw: Errors, call: CallBase, rule: Rule, env: EmitEnv) -> Value:
    """The error of a libm or intrinsic call from its rule's partials."""
    r = fw.new(call)
    terms = []
    for i, x in enumerate(call.args):
        tree = rule.partial(i)
        if tree is None or not fw.has_tangent(x):
            continue
        if x.type != call.type:
            raise unsupported(fw.gu, call, f"'{_callee(call)}', whose argument {i + 1} is of type {x.type} "
                                           f"and its result of type {call.type}")
        scaled = emit_scaled(tree, _relative(fw, x, r), fw.b, fw.gu.module, call.type, env)
        terms.append(_fabs(fw, scaled))
    return _finish(fw, call, r, terms)


# -- pieces -------------------------------------------------------------------------------------


def _relative(fw: Errors, x: Value, r: Value) -> Value:
    """`err(x) * x / r`: x's error relative to the result r."""
    return fw.b.fdiv(fw.b.fmul(fw.tangent(x), fw.new(x), "err.x"), r, "err.rel")


def _fabs(fw: Errors, v: Value) -> Value:
    return fw.b.call(intrinsic(fw.gu.module, "fabs", v.type, []), [v], "err.abs")


def ulp(b: IRBuilder, module: Module, r: Value) -> Value:
    """`|r - r'|`, `r'` being r with the lowest bit of its significand flipped."""
    scalar = r.type.scalar
    assert isinstance(scalar, FloatType)
    bits: Type = IntType(scalar.bits)
    one: Value = ConstantInt(bits, 1)  # type: ignore[arg-type]
    if isinstance(r.type, VectorType):
        bits = VectorType(r.type.count, bits)
        one = ConstantSplat(bits, one)
    neighbour = b.bitcast(b.xor(b.bitcast(r, bits, "err.bits"), one, "err.flip"), r.type, "err.next")
    return b.call(intrinsic(module, "fabs", r.type, []), [b.fsub(r, neighbour, "err.gap")], "err.ulp")


def _finish(fw: Errors, inst: Instruction, r: Value, terms: list[Value]) -> Value:
    """`maxnum(ulp(r), sum of terms)`, or the sum if it is NaN; logged when the program has a logger."""
    b = fw.b
    total: Value | None = None
    for t in terms:
        total = t if total is None else b.fadd(total, t, "err.sum")
    total = total or b.const_zero(r.type)
    maxnum = get_or_insert_function(fw.gu.module, f"llvm.maxnum.{type_suffix(r.type)}",
                                    FunctionType(r.type, (r.type, r.type)))
    larger = b.call(maxnum, [ulp(b, fw.gu.module, r), total], "err.max")
    # llvm.maximum would keep the NaN too, but x86 cannot select it for x86_fp80
    err = b.select(b.fcmp("uno", total, total, "err.nan"), total, larger, "err")
    _log(fw, inst, r, err)
    return err


def _callee(call: CallBase) -> str:
    fn = call.called_function
    return fn.name if isinstance(fn, Function) and fn.name else "<Unknown>"


def _log(fw: Errors, inst: Instruction, r: Value, err: Value) -> None:
    """Call the program's `enzymeLogError` with this operation's result and error."""
    gu = fw.gu
    logger = gu.module.functions.get(LOGGER)
    if logger is None:
        return
    if logger.function_type.params != _LOGGER_TYPE.params:
        raise gu.error(inst, f"'{LOGGER}' has parameters ({', '.join(map(str, logger.function_type.params))}); "
                             "__enzyme_error_estimate calls it with (double, double, ptr, ptr, ptr, ptr, ptr)",
                       f"declare void {LOGGER}(double res, double err, const char *opcode, const char *callee, "
                       "const char *module, const char *function, const char *block)")
    block = inst.parent
    assert block is not None
    position = block.instructions.index(inst)
    functions = list(gu.module.functions)
    names = (f"{inst.opcode} ({position})",
             _callee(inst) if isinstance(inst, CallBase) else "<N/A>",
             gu.module.source_filename or "",
             f"{gu.user_name} ({functions.index(gu.user_name) if gu.user_name in functions else -1})",
             f"{block.name or ''} ({gu.original.blocks.index(block)})")
    strings = [_string(gu, text) for text in names]
    lanes = [(r, err)] if not isinstance(r.type, VectorType) else \
        [(fw.b.extract_element(r, k, "r.lane"), fw.b.extract_element(err, k, "err.lane"))
         for k in range(r.type.count)]
    for value, error in lanes:
        fw.b.call(logger, [_as_double(fw.b, value), _as_double(fw.b, error), *strings],
                  fn_type=logger.function_type)


def _as_double(b: IRBuilder, v: Value) -> Value:
    bits = v.type.bits if isinstance(v.type, FloatType) else 64
    if bits == 64:
        return v
    return b.fpext(v, DOUBLE, "log") if bits < 64 else b.fptrunc(v, DOUBLE, "log")


def _string(gu: GradientUtils, text: str) -> Value:
    """A private constant C string of the module, one per distinct text."""
    data = text.encode() + b"\0"
    key = f"__enzc_errlog.{hashlib.sha1(data).hexdigest()[:16]}"
    got = gu.module.get_global(key)
    if got is not None:
        return got
    ty = ArrayType(len(data), I8)
    gv = gu.module.add_global(key, ty, ConstantString(ty, data), constant=True)
    gv.linkage.words = ["private", "unnamed_addr"]
    return gv
