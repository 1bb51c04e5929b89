"""The derived functions of one module: made on request, memoized, in the right order.

`DerivativeCache` is the one place that decides which derived function a request
gets (Enzyme's `EnzymeLogic`): the combined `diffe_<f>` (`combined`), the forward
`fwddiffe_<f>` (`forward`), forward split mode's `augfwd_<f>` / `fwdsplit_<f>`
(`forward_split`) and the split pair `augmented_<f>` / `reverse_<f>`
(`split_mode`), each keyed by the function and its activity signature. Forward and
split derivatives are registered before their bodies are built, so recursive calls
refer to the functions being made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from enzc.ir.datalayout import DataLayout
from enzc.ir.module import Function, Module
from enzc.ir.forwarding import forwarding_wrapper

from enzc.ad.analysis.annotations import forward_derivative_of, has_custom_gradient

from enzc.ad.synth.combined import Derivative, synthesize_reverse
from enzc.ad.synth.forward import ForwardDerivative, build_forward, declare_forward
from enzc.ad.synth.forward_split import ForwardSplit, build_forward_split, declare_forward_split
from enzc.ad.synth.signature import Signature
from enzc.ad.synth.split_mode import SplitDerivative, build_split, declare_split
from enzc.ad.typeanalysis.analysis import TypeAnalysis


class Mode(Enum):
    """Which derived function: issue 4 builds the combined one; split mode adds
    an augmented forward (returning a tape) and a reverse taking that tape."""

    COMBINED = "combined"
    SPLIT = "split"


@dataclass
class DerivativeCache:
    """Derived functions of one module, keyed by (function name, signature, mode)."""

    module: Module
    layout: DataLayout
    done: dict[tuple[str, Signature, Mode], Derivative] = field(default_factory=dict)
    split_done: dict[tuple[str, Signature], SplitDerivative] = field(default_factory=dict)
    forward_done: dict[tuple[str, Signature], ForwardDerivative] = field(default_factory=dict)
    fwdsplit_done: dict[tuple[str, Signature], ForwardSplit] = field(default_factory=dict)
    tape_consumers: dict[str, set[str]] = field(default_factory=dict)
    """Function name → the entry points (`__enzyme_reverse`, `__enzyme_fwdsplit`) already
    lowered that take a tape of it (`fwdsplit.augment_target`)."""
    tape_stats: bool = False
    """`--enzc-tape-stats`: derivatives count their calls and cache bytes (`tape_stats`)."""
    types: TypeAnalysis = field(init=False)
    """Type analysis of the module, one for every derivative (callees analysed in a
    context once serve every derivative that calls them in that context)."""

    def __post_init__(self) -> None:
        self.types = TypeAnalysis(self.module, self.layout)

    def reverse(self, fn: Function, sig: Signature) -> Derivative:
        """The combined forward+reverse derivative `diffe_<fn>` for `sig`."""
        fn = self._custom_reverse_subject(fn)
        key = (fn.name or "", sig, Mode.COMBINED)
        got = self.done.get(key)
        if got is None:
            got = self.done[key] = synthesize_reverse(self.module, self.layout, fn, sig, self)
        return got

    def forward(self, fn: Function, sig: Signature) -> ForwardDerivative:
        """The forward-mode derivative `fwddiffe_<fn>` for `sig` (a DUP float has a
        tangent). Registered before its body is built, for recursion."""
        if forward_derivative_of(self.module, fn) is not None and not fn.function_type.vararg:
            fn = forwarding_wrapper(self.module, fn, f"__enzc_custom.{fn.name}")
        key = (fn.name or "", sig)
        got = self.forward_done.get(key)
        if got is None:
            got = self.forward_done[key] = declare_forward(self.module, fn, sig)
            build_forward(self, fn, got)
        return got

    def fwdsplit(self, fn: Function, sig: Signature) -> ForwardSplit:
        """The `augfwd_<fn>` / `fwdsplit_<fn>` pair for `sig` (forward split mode with a
        tape). Registered before its bodies are built, for recursion."""
        if forward_derivative_of(self.module, fn) is not None and not fn.function_type.vararg:
            fn = forwarding_wrapper(self.module, fn, f"__enzc_custom.{fn.name}")
        key = (fn.name or "", sig)
        got = self.fwdsplit_done.get(key)
        if got is None:
            got = self.fwdsplit_done[key] = declare_forward_split(self.module, fn, sig)
            build_forward_split(self, got)
        return got

    def split(self, fn: Function, sig: Signature) -> SplitDerivative:
        """The augmented forward / reverse pair of `fn` for `sig`. Registered before
        its body is built, so recursive calls refer to the functions being made."""
        fn = self._custom_reverse_subject(fn)
        key = (fn.name or "", sig)
        got = self.split_done.get(key)
        if got is None:
            got = self.split_done[key] = declare_split(self.module, fn, sig)
            build_split(self, got)
        return got

    def _custom_reverse_subject(self, fn: Function) -> Function:
        """What to differentiate for `fn` itself: a function with the user's gradient
        (`__enzyme_register_gradient_*`) is differentiated through a wrapper that calls
        it, so its custom derivative applies at the entry point as it does at calls
        (Enzyme does the same); its body is never differentiated instead."""
        if has_custom_gradient(fn) and not fn.function_type.vararg:
            return forwarding_wrapper(self.module, fn, f"__enzc_custom.{fn.name}")
        return fn
