"""What a derived function is: the activity signature it is made for, its IR type,
and what the derivative of a caller records about a call to one.

    diffe_f(args, `width` shadows after each dup one)     -> the out adjoints (`width` each)
    augmented_f(the same)                                  -> tape / {tape, r} / {tape, r, r' (one per lane)}
    reverse_f(the same, [`width` d_r], tape)               -> the out adjoints (`width` each)
    fwddiffe_f(args, `width` tangents after each dup one)  -> r / {r, tangent(s)}
    fwderror_f(args, an error after each dup one)          -> r / {r, error}

`Derivatives` is what code building one derivative may ask of the set of all of them
(`derivatives.DerivativeCache`): the derived functions of the callees it meets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from enzc.ir.datalayout import DataLayout
from enzc.ir.module import Function, Module
from enzc.ir.types import PTR, VOID, FunctionType, StructType, Type
from enzc.ir.values import Value

from enzc.ad.analysis.activity import ArgActivity, carries_pointer
from enzc.ad.memory.fnptr import DerivedPair
from enzc.ad.synth.site_types import SiteContext
from enzc.ad.typeanalysis.analysis import TypeAnalysis


@dataclass(frozen=True)
class Signature:
    """Activity of each argument and of the return value."""

    args: tuple[ArgActivity, ...]
    active_return: bool
    stable: frozenset[int] = frozenset()
    """Split mode: pointer arguments whose memory nobody writes between the
    augmented and the reverse call (the reverse may reload through them)."""
    distinct: frozenset[tuple[int, int]] = frozenset()
    """Pairs `(i, j)` of pointer arguments the call site passes into distinct objects
    (`memory_facts.distinct_pairs`): a store through one never changes what the
    other points to, so loads through it may be reloaded instead of cached."""
    distinct_shadows: frozenset[tuple[int, int]] = frozenset()
    """Pairs `(i, j)` of arguments with shadows whose shadows the call site passes into
    distinct objects by what enzcc allocated (`distinct_shadows.distinct_shadow_pairs`;
    empty at the entry call, whose shadows the user gives)."""
    return_primal: bool = False
    """`enzyme_primal_return`: the derivative returns f's result before the adjoints."""
    width: int = 1
    """Tangents (forward mode) or adjoints (reverse mode) per differentiated value:
    `enzyme_width`, the lanes of `lanes.py`."""
    parallel: bool = False
    """Run by every thread of an OpenMP team (an outlined parallel region and what
    it calls): adjoints go into shared memory atomically (`parallel_adjoints`)."""
    runtime_activity: bool = False
    """Enzyme's runtime activity (`enzyme_runtime_activity`): a shadow equal to its
    primal means inactive memory, checked at run time (`runtime_activity`)."""
    error: bool = False
    """Forward mode carrying error estimates instead of tangents
    (`__enzyme_error_estimate`, `forward_error`)."""
    site: SiteContext | None = None
    """For a callee made for one call site (`site_types`: it copies memory only its
    callers can type, and they disagree), what that site passes; None: the
    derivative is typed on its own and serves every call site."""

    def text(self) -> str:
        ret = "active" if self.active_return else "inactive"
        return f"({', '.join(a.value for a in self.args)}) -> {ret}"


@dataclass
class CallRecord:
    """What the reverse pass needs about one active call to a defined function."""

    signature: Signature
    reverse: Value
    """The reverse function, or (indirect calls) the forward value of the callee's
    shadow pair, whose second field is the reverse function."""
    reverse_type: FunctionType
    tape: Value
    """Forward value (of the derivative being built) holding the callee's tape."""


def derived_params(fn: Function, args: tuple[ArgActivity, ...], width: int = 1) -> list:
    """`fn`'s parameter types with `width` copies after each argument that has a
    shadow/tangent."""
    params = []
    for t, a in zip(fn.function_type.params, args):
        params.append(t)
        if a.has_shadow:
            params.extend([t] * width)
    return params


def out_types(fn: Function, sig: Signature) -> list[Type]:
    """What the combined derivative returns: f's result when asked for, then the
    adjoints of the `out` arguments (with `enzyme_width` N, N of each: lane 0..N-1,
    laid out as Enzyme's `{[N x double], ...}`)."""
    primal = [fn.function_type.ret] if sig.return_primal and fn.function_type.ret != VOID else []
    return primal + [t for t, a in zip(fn.function_type.params, sig.args) if a is ArgActivity.OUT
                     for _ in range(sig.width)]


def gradient_type(fn: Function, sig: Signature, split: bool = False) -> FunctionType:
    """Original parameters with a shadow after each dup one (and, in split mode, the
    adjoint of an active return); returns the out adjoints."""
    params: list[Type] = derived_params(fn, sig.args, sig.width)
    if split and sig.active_return and not carries_pointer(fn.function_type.ret):
        params.extend([fn.function_type.ret] * sig.width)  # (an active pointer return has a shadow instead)
    outs = out_types(fn, sig)
    ret: Type = VOID if not outs else outs[0] if len(outs) == 1 else StructType(tuple(outs))
    return FunctionType(ret, tuple(params))


def augmented_type(fn: Function, sig: Signature) -> FunctionType:
    """`augmented_<fn>`: returns the tape, `{tape, result}`, or `{tape, result, shadow}`
    (`{tape, result, shadow, ...}`: one shadow per lane)."""
    params = gradient_type(fn, sig).params
    ret = fn.function_type.ret
    if ret == VOID:
        return FunctionType(PTR, params)
    if sig.active_return and carries_pointer(ret):  # {tape, result, shadow of result in each lane}
        return FunctionType(StructType((PTR, ret, *[ret] * sig.width)), params)
    return FunctionType(StructType((PTR, ret)), params)


def reverse_type(fn: Function, sig: Signature) -> FunctionType:
    """`reverse_<fn>`: the combined derivative's parameters (in split mode), then the tape."""
    g = gradient_type(fn, sig, split=True)
    return FunctionType(g.ret, (*g.params, PTR))


class ForwardPair(Protocol):
    """A forward-mode derivative (`forward.ForwardDerivative`)."""

    function: Function
    pair: bool
    """It returns `{primal, tangent(s)}`."""


class Derivatives(Protocol):
    """The derived functions of one module, made on request and memoized."""

    module: Module
    layout: DataLayout
    tape_stats: bool
    """`--enzc-tape-stats`: derivatives count their calls and cache bytes."""
    types: TypeAnalysis
    """The module's type analysis, shared by every derivative."""

    def split(self, fn: Function, sig: Signature) -> DerivedPair:
        """`augmented_<fn>` / `reverse_<fn>` for `sig` (declared before they are built)."""

    def forward(self, fn: Function, sig: Signature) -> ForwardPair:
        """`fwddiffe_<fn>` for `sig` (declared before it is built)."""
