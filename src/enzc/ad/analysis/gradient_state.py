"""The derivative being built, as rule and memory code sees it.

Derivative rules (`rules`) and memory handling (`memory`) emit code into a derivative
that `synth` owns: they read its value maps, shadows and adjoints, look forward
values up from the reverse pass, and build instructions with its builder. This
protocol is that interface, so those layers depend on it and not on `synth`;
`synth.gradient_utils.GradientUtils` implements it.
"""

from __future__ import annotations

from typing import Protocol

from enzc.ir.builder import IRBuilder
from enzc.ir.datalayout import DataLayout
from enzc.ir.dominators import DominatorTree
from enzc.ir.instructions import Instruction
from enzc.ir.loops import LoopInfo
from enzc.ir.module import Function, Module
from enzc.ir.types import Type
from enzc.ir.values import Value

from enzc.ad.analysis.activity import Activity
from enzc.ad.analysis.memory_facts import MemoryFacts
from enzc.ad.diagnostics import ADError
from enzc.ad.typeanalysis.results import TypeResults


class GradientState(Protocol):
    """Per-derivative state and the operations rule and memory code uses."""

    module: Module
    layout: DataLayout
    original: Function
    """The private copy of the function being differentiated."""
    new: Function
    """The derivative function being built."""
    activity: Activity
    loops: LoopInfo
    """Loops of the original."""
    dt: DominatorTree
    """Dominator tree of the original."""
    b: IRBuilder
    """Positioned in the reverse block being emitted (reverse pass code)."""
    shadows: dict[Value, Value]
    """Original pointer -> its forward shadow, as made so far."""
    value_map: dict[Value, Value]
    """Original value -> its forward clone in the derivative."""
    original_of: dict[Value, Value]
    """The inverse of `value_map`."""
    custom_tapes: dict[Value, Value | None]
    """Calls with a custom derivative -> the tape their augmented call returned."""
    blas_tapes: dict[Value, object]
    """BLAS calls -> what their forward pass kept for the reverse (`rules.blas_reverse`)."""
    runtime_activity: bool
    """Enzyme's runtime activity: a shadow equal to its primal is inactive (`synth.runtime_activity`)."""
    runtime_scratch: dict[Type, Value]
    """Runtime activity: per type, the slot writes through inactive shadows go to."""
    width: int
    """Lanes of the derivative (`enzyme_width`); shadows and adjoints are the current one's."""
    lane: int
    """The current lane (0 ... width - 1): rule code run once per lane frees shared things in the last."""

    @property
    def memory(self) -> MemoryFacts:
        """Write and alias facts of the original."""

    @property
    def types(self) -> TypeResults:
        """Type analysis of the original."""

    def error(self, inst: Instruction | None, what: str, hint: str | None = None) -> ADError:
        """A located compile-time error about original instruction `inst`."""

    def new_value(self, v: Value) -> Value:
        """The forward clone of original value `v` (constants as they are)."""

    def shadow(self, v: Value) -> Value:
        """The forward shadow of original pointer `v`, made on first request."""

    def lookup(self, v: Value) -> Value:
        """Forward value `v` (of the derivative) at the builder's reverse position."""

    def has_adjoint(self, v: Value) -> bool:
        """Whether original value `v` carries an adjoint."""

    def take_adjoint(self, v: Value) -> Value:
        """Load and clear the adjoint of `v` at the builder's position."""

    def add_adjoint(self, v: Value, delta: Value) -> None:
        """adj(v) += delta (nothing for constants and inactive values)."""
