"""What the PyTorch and JAX adapters share: which parameters are inputs, which are
outputs, and the shape of each output array.

`outputs` names the outputs the adapted function returns, in order: the result as
"return", and arrays the C code writes, each with its shape: a tuple of ints, the
name of an input whose shape it has, or a callable taking the inputs (arrays or
tracers, by parameter order) and returning the shape. Output arrays are not passed
by the caller: the adapter allocates them (zeroed) for each call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from enzc.python.binding import outputs as output_names
from enzc.python.ctype import Pointer, Scalar
from enzc.python.library import Function
from enzc.python.signature import Param
from enzc.python.wrappers import RESULT

ShapeSpec = tuple[int, ...] | str | Callable[..., Sequence[int]] | None


@dataclass(frozen=True)
class Plan:
    """How an adapted call maps onto the C function."""

    fn: Function
    inputs: tuple[Param, ...]
    """Parameters the caller passes, in C order."""
    outputs: tuple[tuple[str, ShapeSpec], ...]

    def dtype(self, name: str) -> np.dtype:
        """The NumPy dtype of an output (or floating input)."""
        sig = self.fn.signature
        ctype = sig.result if name == RESULT else sig.params[sig.param_index(name) or 0].ctype
        element = ctype.element if isinstance(ctype, Pointer) else ctype
        assert isinstance(element, Scalar)
        return element.dtype

    def shape(self, name: str, spec: ShapeSpec, inputs: Sequence[Any]) -> tuple[int, ...]:
        """The shape of output `name` for these inputs (arrays or tracers)."""
        if name == RESULT:
            return ()
        if isinstance(spec, str):
            return tuple(np.shape(inputs[self.input_position(spec)]))
        if callable(spec):
            return tuple(int(d) for d in spec(*inputs))
        return tuple(int(d) for d in spec or ())

    def input_position(self, name: str) -> int:
        return next(i for i, p in enumerate(self.inputs) if p.name == name)

    def c_arguments(self, inputs: Sequence[Any], buffers: Mapping[str, np.ndarray]) -> list[Any]:
        """The full C argument list: the inputs with the output buffers in their places."""
        values = iter(inputs)
        return [buffers[p.name] if p.name in buffers else next(values)
                for p in self.fn.signature.params]

    def buffers(self, inputs: Sequence[Any]) -> dict[str, np.ndarray]:
        """Fresh zeroed output arrays."""
        return {name: np.zeros(self.shape(name, spec, inputs), self.dtype(name))
                for name, spec in self.outputs if name != RESULT}

    def is_floating(self, param: Param) -> bool:
        element = param.ctype.element if isinstance(param.ctype, Pointer) else param.ctype
        return isinstance(element, Scalar) and element.is_float


def plan(fn: Any, outputs: Mapping[str, ShapeSpec] | Sequence[str] | str | None) -> Plan:
    """Check `outputs` against the function's signature."""
    if not isinstance(fn, Function):
        raise TypeError(f"expected a function of an enzc.load library, not {type(fn).__name__}")
    sig = fn.signature
    available = output_names(sig)
    if outputs is None:
        if RESULT not in available:
            raise ValueError(f"{sig.name}: say which outputs to return, with their shapes "
                             f"(outputs={{name: shape}}; outputs: {', '.join(available)})")
        outputs = (RESULT,)
    if isinstance(outputs, str):
        outputs = (outputs,)
    spec = dict(outputs) if isinstance(outputs, Mapping) else {name: None for name in outputs}
    for name, shape in spec.items():
        if name not in available:
            raise ValueError(f"{sig.name}: '{name}' is not an output (outputs: "
                             f"{', '.join(available) or 'none'})")
        if name != RESULT and shape is None:
            raise ValueError(f"{sig.name}: output '{name}' needs a shape: a tuple, the name "
                             "of an input of that shape, or a function of the inputs")
    inputs = tuple(p for p in sig.params if p.name not in spec)
    for name, shape in spec.items():
        if isinstance(shape, str) and shape not in [p.name for p in inputs]:
            raise ValueError(f"{sig.name}: the shape of '{name}' names '{shape}', which is "
                             "not an input")
    return Plan(fn, inputs, tuple(spec.items()))
