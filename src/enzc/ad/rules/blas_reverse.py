"""BLAS calls in reverse mode: what the forward pass keeps, and the adjoint calls.

Forward pass (`forward_blas_call`, before the reverse visitor runs), right before
the call:
- a Fortran call's scalars are loaded from the memory its arguments point to
  (that memory may change before the reverse pass reads them);
- arrays the reverse rule reads are copied into a cache (`malloc` + BLAS copy
  for a vector, a helper loop for a matrix) when the call overwrites them
  (`old(y)`: gemv's y for d(beta)), or when some other write of the function may
  change them before the reverse pass runs (`MemoryFacts.input_unchanged`; in
  split mode also the caller's writes between the two halves). Otherwise the
  reverse pass reads the array where it is: no copy.
Right after the call: an overwritten array the reverse reads as the call left it
(`new(B)`: the solution of `trsm` and `trsv`) is copied the same way, unless no
other write may change it before the reverse pass (then it is read in place).
Only what the items that will run read counts: a constant alpha needs no copy of
an overwritten y, a constant B no copy of A.

Reverse pass (`reverse_blas_call`): the rule's items, then the caches are freed
(with `enzyme_width`, the items run once per lane and the last lane frees).
The cache pointers and loaded scalars are ordinary forward values, so a call in a
loop keeps one set per iteration through the engine's caches, and split mode
carries them in the tape.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from enzc.ir.builder import IRBuilder, get_or_insert_function
from enzc.ir.instructions import CallBase
from enzc.ir.libc import declare
from enzc.ir.module import BasicBlock, Function, Module
from enzc.ir.types import I8, I32, I64, PTR, FloatType, FunctionType, PointerType
from enzc.ir.values import ConstantInt, Value, const_fp

from enzc.ad.analysis.calls import CallKind, classify
from enzc.ad.analysis.gradient_state import GradientState
from enzc.ad.analysis.runtime_activity import inactive_at_run_time
from enzc.ad.diagnostics import ADError
from enzc.ad.rules.blas_calls import Array, Known
from enzc.ad.rules.blas_dsl import derivatives_named, primals_named
from enzc.ad.rules.blas_eval import Evaluator, check_constants, copy_array
from enzc.ad.rules.blas_rules import RULES, BlasRule
from enzc.ad.rules.table import has_rule
from enzc.ad.typeanalysis.blas_abi import LETTER_ROLES, BlasCallee, blas_callee


@dataclass
class BlasTape:
    """What the forward pass of one BLAS call keeps for its reverse."""

    scalars: dict[str, Value] = field(default_factory=dict)
    """Fortran: the loaded values of scalar arguments."""
    caches: dict[str, Array] = field(default_factory=dict)
    """Copies of arrays the reverse reads, by parameter name."""
    results: dict[str, Array] = field(default_factory=dict)
    """Copies of overwritten arrays as the call left them (`new(...)`)."""


def rule_of(gu: GradientState, call: CallBase) -> tuple[BlasCallee, BlasRule]:
    """The routine of `call` and its rule; a located error for a routine without one."""
    blas = blas_callee(call.called_function)
    assert blas is not None
    rule = RULES.get(blas.routine.name)
    if rule is None:
        raise gu.error(call, f"no derivative rule for the BLAS routine '{call.called_function.name}'",  # type: ignore[union-attr]
                       "enzc differentiates dot, nrm2, asum, axpy, scal, copy, gemv, symv, ger, gemm, syrk, trmv, "
                       "trsv, trmm, trsm, lascl (and potrf and lacpy in forward mode); "
                       "write this step with those, or register a custom derivative "
                       f"(__enzyme_register_gradient_{call.called_function.name})")  # type: ignore[union-attr]
    if blas.cublas and blas.routine.name in TRIANGULAR:
        raise gu.error(call, f"enzc's rule for '{call.called_function.name}' is not for cuBLAS",  # type: ignore[union-attr]
                       "cuBLAS's trmm writes a third matrix, where the rules call BLAS's in-place trmm: "
                       "register a custom derivative, or call the host BLAS")
    return blas, rule


TRIANGULAR = ("trmv", "trsv", "trmm", "trsm")
"""Routines whose rules call trmm or are untested against cuBLAS: refused there."""


def load_fortran_scalars(b: IRBuilder, blas: BlasCallee, call_args: list[Value]) -> dict[str, Value]:
    """The values a call's scalar arguments passed by reference point to (all of Fortran's,
    cuBLAS's alpha and beta), loaded at the builder."""
    out: dict[str, Value] = {}
    for p, arg in zip(blas.params(), call_args):
        if not blas.by_ref(p):
            continue
        if p.role == "fp":
            ty = FloatType(blas.kind)
        elif p.role in LETTER_ROLES:
            ty = I8
        else:
            ty = I64 if "64" in blas.suffix else I32
        out[p.name] = b.load(ty, arg, f"blas.{p.name}")
    return out


def check_output_shadow(gu: GradientState, call: CallBase, blas: BlasCallee,
                        has_derivative) -> None:
    """Active data flowing into an array without derivative memory would be lost."""
    outputs = [p.name for p in blas.params() if p.written]
    inputs = [p.name for p in blas.params() if (p.is_array or p.role == "fp") and not p.written]
    if any(not has_derivative(o) for o in outputs) and any(has_derivative(i) for i in inputs):
        raise gu.error(call, "active data is written by this BLAS call into memory the AD cannot shadow",
                       "pass the output array with enzyme_dup (or keep it in a local or heap buffer)")


class _Env:
    """`BlasEnv` in the reverse pass: forward values looked up at the call's reverse."""

    def __init__(self, gu: GradientState, call: CallBase, blas: BlasCallee, tape: BlasTape) -> None:
        self.gu, self.call, self.blas, self.tape = gu, call, blas, tape
        self.b: IRBuilder = gu.b
        self.module: Module = gu.module
        self._dret: Value | None = None
        self._dret_address: Value | None = None
        self._inactive: dict[str, Value | None] = {}

    def _arg(self, name: str) -> Value:
        i = self.blas.arg_index(name)
        assert i is not None, name
        return self.call.args[i]

    def _fwd(self, v: Value) -> Value:
        return self.gu.lookup(self.gu.new_value(v))

    def scalar(self, name: str) -> Value:
        if name in self.tape.scalars:
            return self.gu.lookup(self.tape.scalars[name])
        return self._fwd(self._arg(name))

    def array(self, name: str) -> Array:
        cache = self.tape.caches.get(name)
        if cache is not None:
            return Array(self.gu.lookup(cache.ptr), _looked_up(self.gu, cache.stride))
        assert not self.blas.routine.param(name).written, f"the reverse reads overwritten {name}: use old()"
        return self._in_place(name)

    def _in_place(self, name: str) -> Array:
        stride = self.blas.routine.params[self.blas.routine.index(name) + 1].name
        return Array(self._fwd(self._arg(name)), Known(self.scalar(stride), "int"))

    def old(self, name: str) -> Array:
        cache = self.tape.caches[name]
        return Array(self.gu.lookup(cache.ptr), _looked_up(self.gu, cache.stride))

    def new(self, name: str) -> Array:
        cache = self.tape.results.get(name)
        if cache is None:  # nothing but the call writes it: still as the call left it
            return self._in_place(name)
        return Array(self.gu.lookup(cache.ptr), _looked_up(self.gu, cache.stride))

    def shadow(self, name: str) -> Value:
        return self.gu.lookup(self.gu.shadow(self._arg(name)))

    def has_derivative(self, name: str) -> bool:
        return has_derivative(self.gu, self.call, self.blas, name)

    def tangent(self, name: str) -> Value:
        raise AssertionError("tangents are forward mode's")

    def add_derivative(self, name: str, value: Value) -> None:
        arg = self._arg(name)
        if not self.blas.by_ref(self.blas.param(name)):
            self.gu.add_adjoint(arg, value)
            return
        slot = self.shadow(name)  # Fortran, cuBLAS: alpha by reference, its adjoint in the shadow
        b = self.b
        b.store(b.fadd(b.load(value.type, slot, "blas.dalpha"), value, "blas.dalpha"), slot)

    def result(self) -> Value:
        if self.blas.result_ptr:
            return self.gu.lookup(self.tape.scalars["ret"])
        return self._fwd(self.call)

    def result_adjoint(self) -> Value:
        if self._dret is None and self.blas.result_ptr:  # cuBLAS: *result's adjoint, cleared by `release`
            self._dret_address = self.shadow("result")
            self._dret = self.b.load(FloatType(self.blas.kind), self._dret_address, "blas.dret")
        elif self._dret is None:
            self._dret = self.gu.take_adjoint(self.call)
        return self._dret

    def result_adjoint_address(self) -> Value | None:
        self.result_adjoint()
        return self._dret_address

    def release(self) -> None:
        """cuBLAS: the result's adjoint, read by the rule, is taken (zeroed) after it."""
        if self._dret_address is not None:
            handle = self._fwd(self.call.args[0])
            clear_cublas_scalar(self.b, self.module, handle, self._dret_address, FloatType(self.blas.kind))

    def error(self, what: str, hint: str | None = None) -> ADError:
        return self.gu.error(self.call, what, hint)

    def inactive(self, name: str) -> Value | None:
        if name not in self._inactive:
            i = self.blas.arg_index(name)
            arg = self.call.args[i] if i is not None else None
            self._inactive[name] = None if not self.gu.runtime_activity or arg is None \
                or not isinstance(arg.type, PointerType) \
                or not self.gu.activity.has_shadow(arg) \
                else inactive_at_run_time(self.gu, self.b, self.shadow(name), arg, reverse=True)
        return self._inactive[name]

    def continued_in(self, block: BasicBlock) -> None:
        pass  # reverse blocks are found by the builder's position, not by a map


def _looked_up(gu: GradientState, stride):
    return Known(gu.lookup(stride.value), "int") if isinstance(stride, Known) else stride


def has_derivative(gu: GradientState, call: CallBase, blas: BlasCallee, name: str) -> bool:
    """Reverse mode: parameter `name` (or `ret`) of `call` carries an adjoint."""
    if name == "ret" and not blas.result_ptr:
        return gu.has_adjoint(call)
    i = blas.arg_index("result" if name == "ret" else name)
    if i is None:
        return False
    arg = call.args[i]
    p = blas.params()[i]
    if p.is_array or p.role == "result" or blas.by_ref(p):
        return gu.activity.has_shadow(arg)
    return gu.has_adjoint(arg)


class _ForwardPassEnv(_Env):
    """The forward pass's view, for making caches before the call."""

    def scalar(self, name: str) -> Value:
        if name in self.tape.scalars:
            return self.tape.scalars[name]
        return self.gu.new_value(self._arg(name))

    def array(self, name: str) -> Array:
        stride = self.blas.routine.params[self.blas.routine.index(name) + 1].name
        return Array(self.gu.new_value(self._arg(name)), Known(self.scalar(stride), "int"))


def forward_blas_call(gu: GradientState, call: CallBase) -> None:
    """The forward-pass duties of an active BLAS call (see the module docstring)."""
    blas, rule = rule_of(gu, call)
    if rule.reverse is None:
        name = call.called_function.name  # type: ignore[union-attr]
        raise gu.error(call, f"the LAPACK routine '{name}' has a forward-mode derivative only",
                       f"use __enzyme_fwddiff, or register a custom derivative (__enzyme_register_gradient_{name})")
    new_call = gu.new_value(call)
    b = IRBuilder()
    b.position_before(new_call)  # type: ignore[arg-type]
    if blas.cublas and blas.routine.name == "potrf":
        raise gu.error(call, "cuBLAS has no potrf", "call cuSOLVER's, with a custom derivative")
    tape = BlasTape()
    tape.scalars = load_fortran_scalars(b, blas, [gu.new_value(a) for a in call.args])
    if blas.result_ptr:  # cuBLAS's float result, read after the call for the reverse
        after = IRBuilder()
        after.position_after(new_call)  # type: ignore[arg-type]
        result = gu.new_value(call.args[blas.arg_index("result")])  # type: ignore[index]
        tape.scalars["ret"] = after.load(FloatType(blas.kind), result, "blas.ret")
    check_output_shadow(gu, call, blas, lambda n: has_derivative(gu, call, blas, n))
    env = _ForwardPassEnv(gu, call, blas, tape)
    env.b = b
    ev = Evaluator(env)
    before, after = _arrays_to_copy(gu, call, blas, rule)
    for name in before:
        tape.caches[name] = copy_array(env, ev, name)
    if after:
        env_after = _ForwardPassEnv(gu, call, blas, tape)
        env_after.b = IRBuilder()
        env_after.b.position_after(new_call)  # type: ignore[arg-type]
        ev_after = Evaluator(env_after)
        for name in after:
            tape.results[name] = copy_array(env_after, ev_after, name)
    gu.blas_tapes[call] = tape


def forward_blas_calls(gu: GradientState) -> None:
    """`forward_blas_call` for every active BLAS call of the original (before the reverse
    pass, whose lookups see the values it keeps)."""
    for inst in list(gu.original.instructions()):
        if (isinstance(inst, CallBase) and classify(inst, has_rule) is CallKind.BLAS
                and gu.activity.is_active_instruction(inst)):
            forward_blas_call(gu, inst)


def _arrays_to_copy(gu: GradientState, call: CallBase, blas: BlasCallee, rule: BlasRule) -> tuple[list[str], list[str]]:
    """The arrays to copy before the call (inputs, `old(...)`) and after it (`new(...)`)."""
    plain: set[str] = set()
    old: set[str] = set()
    new: set[str] = set()
    for item in rule.reverse_items:
        if all(has_derivative(gu, call, blas, n) for n in derivatives_named(item)):
            p, o, w = primals_named(item)
            plain |= p
            old |= o
            new |= w
    before, after = [], []
    for p in blas.params():
        if not p.is_array:
            continue
        if p.name not in old | plain | new:
            continue
        unchanged = gu.memory.input_unchanged(call.args[blas.arg_index(p.name)], call)  # type: ignore[index]
        if p.name in old or p.name in plain and not unchanged:
            before.append(p.name)
        if p.name in new and not unchanged:
            after.append(p.name)
    return before, after


CUBLAS_POINTER_MODE_DEVICE = 1
"""cuBLAS's `cublasPointerMode_t` value for scalars in device memory (host is 0)."""


def clear_cublas_scalar(b: IRBuilder, module: Module, handle: Value, address: Value, fp: FloatType) -> None:
    """`*address = 0` for a float cuBLAS reads or writes by pointer: in device memory
    (`cudaMemset`) when the handle's pointer mode says so, else with a store.

    Both functions are weak references unless the program has them, so a program
    without the CUDA runtime links: without `cublasGetPointerMode_v2` the mode is
    taken as device exactly when the program has `cudaMemset` (as Enzyme clears it)."""
    get_mode = _weak_function(module, "cublasGetPointerMode_v2", FunctionType(I32, (PTR, PTR)))
    memset = _weak_function(module, "cudaMemset", FunctionType(I32, (PTR, I32, I64)))
    null = b.const_null()
    with b.goto_entry_allocas():
        mode = b.alloca(I32, name="cublas.mode")
    has_memset = b.icmp("ne", memset, null, "cublas.has_memset")
    b.store(b.zext(has_memset, I32), mode)  # CUBLAS_POINTER_MODE_HOST is 0, _DEVICE 1
    with b.if_then(b.icmp("ne", get_mode, null, "cublas.has_mode")):
        b.call(get_mode, [handle, mode])
    device = b.icmp("eq", b.load(I32, mode, "cublas.mode"), ConstantInt(I32, CUBLAS_POINTER_MODE_DEVICE))
    with b.if_else(device) as (on_device, on_host):
        with on_device:
            b.call(memset, [address, ConstantInt(I32, 0), ConstantInt(I64, fp.bits // 8)])
        with on_host:
            b.store(const_fp(fp, 0.0), address)


def _weak_function(module: Module, name: str, ftype: FunctionType) -> Function:
    """The program's `name`, or a weak declaration of it (null if nothing defines it)."""
    fn = module.get_function(name)
    if fn is not None:
        return fn
    fn = get_or_insert_function(module, name, ftype)
    fn.linkage.words = ["extern_weak"]
    return fn


def reverse_blas_call(gu: GradientState, call: CallBase) -> None:
    """The adjoint of `call` at the builder's reverse position, then its caches freed."""
    blas, rule = rule_of(gu, call)
    tape = gu.blas_tapes.get(call)
    assert isinstance(tape, BlasTape), "forward_blas_call runs first"
    env = _Env(gu, call, blas, tape)
    check_constants(env, rule.constant)
    if gu.runtime_activity and gu.has_adjoint(call):
        env.result_adjoint()  # taken before any run-time check branches (items share it)
    Evaluator(env).run(rule.reverse_items)
    env.release()
    if gu.lane != gu.width - 1:
        return  # enzyme_width: every lane reads the caches, the last frees them
    free = declare(gu.module, "free")
    for cache in (*tape.caches.values(), *tape.results.values()):
        gu.b.call(free, [gu.lookup(cache.ptr)])
