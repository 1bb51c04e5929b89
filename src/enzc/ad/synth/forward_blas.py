"""Forward mode through BLAS calls: the `forward` items of `rules.blas_rules`.

The tangent calls come right before the call (they read `y` or `C` as the call
will, and the old tangent of the output; Enzyme's order, which its tests trace),
except for a rule marked `forward_after` (potrf: they read the factor it writes).
With `enzyme_width` N the visitor runs once per lane, each lane with its own
shadows and tangents, so each lane gets its own tangent calls.
"""

from __future__ import annotations

from typing import Protocol

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import CallBase
from enzc.ir.module import BasicBlock, Module
from enzc.ir.types import FloatType, PointerType
from enzc.ir.values import Value

from enzc.ad.analysis.runtime_activity import inactive_at_run_time
from enzc.ad.diagnostics import ADError
from enzc.ad.rules.blas_calls import Array, Known
from enzc.ad.rules.blas_eval import Evaluator, check_constants
from enzc.ad.rules.blas_reverse import check_output_shadow, load_fortran_scalars, rule_of
from enzc.ad.synth.gradient_utils import GradientUtils
from enzc.ad.typeanalysis.blas_abi import BlasCallee


class Tangents(Protocol):
    """What this module needs of forward mode's visitor (`forward._Tangents`)."""

    gu: GradientUtils
    b: IRBuilder
    t: dict[Value, Value]

    def tangent(self, v: Value) -> Value: ...

    def has_tangent(self, v: Value) -> bool: ...

    def new(self, v: Value) -> Value: ...

    def active(self, inst) -> bool: ...


class _Env:
    """`BlasEnv` of forward mode: everything is at hand at the call."""

    def __init__(self, fw: Tangents, call: CallBase, blas: BlasCallee) -> None:
        self.fw, self.call, self.blas = fw, call, blas
        self.b: IRBuilder = fw.b
        self.module: Module = fw.gu.module
        self.scalars: dict[str, Value] | None = None
        self.result_tangent: Value | None = None
        self._inactive: dict[str, Value | None] = {}

    def _arg(self, name: str) -> Value:
        i = self.blas.arg_index(name)
        assert i is not None, name
        return self.call.args[i]

    def scalar(self, name: str) -> Value:
        if not self.blas.by_ref(self.blas.param(name)):
            return self.fw.new(self._arg(name))
        if self.scalars is None:
            self.scalars = load_fortran_scalars(self.b, self.blas, [self.fw.new(a) for a in self.call.args])
        return self.scalars[name]

    def array(self, name: str) -> Array:
        stride = self.blas.routine.params[self.blas.routine.index(name) + 1].name
        return Array(self.fw.new(self._arg(name)), Known(self.scalar(stride), "int"))

    def old(self, name: str) -> Array:
        return self.array(name)  # the tangent calls run before the call

    def new(self, name: str) -> Array:
        raise AssertionError("forward rules compute what the call will write themselves")

    def shadow(self, name: str) -> Value:
        return self.fw.gu.shadow(self._arg(name))

    def has_derivative(self, name: str) -> bool:
        if name == "ret" and not self.blas.result_ptr:
            return self.fw.active(self.call)
        i = self.blas.arg_index("result" if name == "ret" else name)
        if i is None:
            return False
        arg = self.call.args[i]
        p = self.blas.params()[i]
        if p.is_array or p.role == "result" or self.blas.by_ref(p):
            return self.fw.gu.activity.has_shadow(arg)
        return self.fw.has_tangent(arg)

    def tangent(self, name: str) -> Value:
        arg = self._arg(name)
        if not self.blas.by_ref(self.blas.param(name)):
            return self.fw.tangent(arg)
        return self.b.load(FloatType(self.blas.kind), self.shadow(name), "blas.d" + name)

    def add_derivative(self, name: str, value: Value) -> None:
        assert name == "ret"
        if self.blas.result_ptr:  # cuBLAS: the tangent of *result, which the call overwrites
            self.result_tangent = value if self.result_tangent is None else \
                self.b.fadd(self.result_tangent, value, "d.blas")
            self.b.store(self.result_tangent, self.shadow("result"))
            return
        old = self.fw.t.get(self.call)
        self.fw.t[self.call] = value if old is None else self.b.fadd(old, value, "d.blas")

    def result(self) -> Value:
        return self.fw.new(self.call)

    def result_adjoint(self) -> Value:
        raise AssertionError("adjoints are reverse mode's")

    def error(self, what: str, hint: str | None = None) -> ADError:
        return self.fw.gu.error(self.call, what, hint)

    def inactive(self, name: str) -> Value | None:
        if name not in self._inactive:
            i = self.blas.arg_index(name)
            arg = self.call.args[i] if i is not None else None
            gu = self.fw.gu
            self._inactive[name] = None if not gu.runtime_activity or arg is None \
                or not isinstance(arg.type, PointerType) \
                or not gu.activity.has_shadow(arg) \
                else inactive_at_run_time(gu, self.b, self.shadow(name), arg)
        return self._inactive[name]

    def continued_in(self, block: BasicBlock) -> None:
        """The primal call now sits in `block`: edges out of its original block leave from there."""
        gu = self.fw.gu
        original = self.call.parent
        assert original is not None
        gu.value_map[original] = block
        gu.block_map[block] = original


def forward_blas(fw: Tangents, call: CallBase) -> None:
    """The tangent calls of BLAS call `call` for the current lane."""
    gu = fw.gu
    if not gu.activity.is_active_instruction(call) and not fw.active(call):
        return
    blas, rule = rule_of(gu, call)
    env = _Env(fw, call, blas)
    check_output_shadow(gu, call, blas, env.has_derivative)
    check_constants(env, rule.constant)
    new_call = fw.new(call)
    if rule.forward_after:
        fw.b.position_after(new_call)  # type: ignore[arg-type]
    else:
        fw.b.position_before(new_call)  # type: ignore[arg-type]
    if gu.runtime_activity and any(blas.by_ref(p) for p in blas.params()):
        env.scalar(next(p for p in blas.params() if blas.by_ref(p)).name)  # loaded before any run-time branch
    Evaluator(env).run(rule.forward_items)
