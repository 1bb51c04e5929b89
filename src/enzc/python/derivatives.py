"""grad, value_and_grad, vjp, jvp and jacobian on top of the generated wrappers.

Each wrapper call runs the function once with a shadow per floating input/output
(see wrappers.py): reverse mode starts from the outputs' cotangents in their
shadows and leaves the inputs' adjoints there, forward mode starts from the inputs'
tangents and leaves the outputs' tangents. Shadows are fresh NumPy arrays of the C
element type and the argument's shape.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from enzc.python.binding import input_name, output_name, outputs
from enzc.python.ctype import Pointer, Scalar
from enzc.python.signature import Signature
from enzc.python.wrappers import RESULT, Slot, grad_slots, slots

Wrapper = Callable[..., None]


class Call:
    """One wrapper call being assembled: primal arguments, boxes and shadows."""

    def __init__(self, sig: Signature, args: Sequence[Any],
                 call_slots: list[Slot] | None = None) -> None:
        self.sig = sig
        self.slots = slots(sig) if call_slots is None else call_slots
        self.values: dict[str, Any] = {p.name: a for p, a in zip(sig.params, args)}
        self.shadows: dict[str, np.ndarray] = {}
        self.boxes: dict[str, np.ndarray] = {}

    def seed(self, name: str, value: Any) -> None:
        """Put a tangent/cotangent for `name` in its shadow (checked against its shape)."""
        shadow = self.shadow(name)
        given = np.asarray(value, dtype=shadow.dtype)
        if given.size != shadow.size:
            raise ValueError(f"{self.sig.name}(): the tangent/cotangent of '{name}' has "
                             f"{given.size} elements, '{name}' has {shadow.size}")
        shadow.reshape(-1)[:] = given.reshape(-1)

    def shadow(self, name: str) -> np.ndarray:
        if name not in self.shadows:
            slot = next(s for s in self.slots if s.name == name)
            element = _element(slot.ctype)
            if slot.boxed:
                self.shadows[name] = np.zeros(1, dtype=element.dtype)
            else:
                self.shadows[name] = np.zeros(np.shape(self.values[name]), dtype=element.dtype)
        return self.shadows[name]

    def run(self, wrapper: Wrapper) -> None:
        arguments: list[Any] = []
        for slot in self.slots:
            arguments.append(self._primal(slot))
            if slot.active:
                arguments.append(self.shadow(slot.name))
        wrapper(*arguments)

    def _primal(self, slot: Slot) -> Any:
        if not slot.boxed:
            return self.values[slot.name]
        element = _element(slot.ctype)
        box = np.zeros(1, dtype=element.dtype)
        if slot.name != RESULT:
            box[0] = _real(self.sig, slot.name, self.values[slot.name])
        self.boxes[slot.name] = box
        return box

    def value(self) -> Any:
        """The function's result after the call (None for void)."""
        box = self.boxes.get(RESULT)
        return None if box is None else box[0].item()

    def derivative(self, name: str) -> Any:
        """The shadow of `name` after the call: an array, or a float for scalars."""
        shadow = self.shadow(name)
        slot = next(s for s in self.slots if s.name == name)
        return shadow[0].item() if slot.boxed else shadow


def reverse(sig: Signature, wrapper: Wrapper, args: Sequence[Any],
            cotangents: Mapping[Any, Any], wrt: Sequence[str]) -> Call:
    """Run the reverse wrapper with the given output cotangents."""
    call = Call(sig, args)
    for key, value in cotangents.items():
        call.seed(output_name(sig, key, "cotangents"), value)
    for name in wrt:
        call.shadow(name)
    call.run(wrapper)
    return call


def gradient(sig: Signature, wrappers: Mapping[int | None, Wrapper], args: Sequence[Any],
             wrt: Sequence[str]) -> Call:
    """Run a grad wrapper: the result's adjoint is 1 and the result is not computed.
    `wrappers` maps a parameter index to its own wrapper (None: all inputs active)."""
    index = sig.param_index(wrt[0]) if len(wrt) == 1 else None
    if index not in wrappers:
        index = None
    call = Call(sig, args, grad_slots(sig, index))
    for name in wrt:
        call.shadow(name)
    call.run(wrappers[index])
    return call


def forward(sig: Signature, wrapper: Wrapper, args: Sequence[Any],
            tangents: Mapping[Any, Any]) -> Call:
    """Run the forward wrapper with the given input tangents."""
    call = Call(sig, args)
    for key, value in tangents.items():
        call.seed(input_name(sig, key, "tangents"), value)
    call.run(wrapper)
    return call


def jvp_outputs(call: Call) -> dict[str, Any]:
    """The outputs' tangents after a forward call."""
    return {name: call.derivative(name) for name in outputs(call.sig)}


def jacobian(sig: Signature, rev: Wrapper, fwd: Wrapper, args: Sequence[Any], wrt: str,
             of: str) -> np.ndarray:
    """d(of)/d(wrt) as a dense (size(of), size(wrt)) matrix, by columns in forward mode
    or by rows in reverse mode, whichever takes fewer calls. Arrays the C code writes
    are copied for each call, so the caller's arrays are left as they were."""
    pristine = {p.name: np.array(a, copy=True) for p, a in zip(sig.params, args) if p.written}
    n = _size(sig, args, wrt)
    m = _size(sig, args, of) if of != RESULT else 1
    dtype = _element(next(s for s in slots(sig) if s.name == of).ctype).dtype
    matrix = np.zeros((m, n), dtype=dtype)

    def fresh() -> list[Any]:
        return [np.array(pristine[p.name], copy=True) if p.name in pristine else a
                for p, a in zip(sig.params, args)]

    if n <= m:
        for j in range(n):
            call = Call(sig, fresh())
            call.shadow(wrt).reshape(-1)[j] = 1
            call.run(fwd)
            matrix[:, j] = np.reshape(call.derivative(of), -1)
    else:
        for i in range(m):
            call = Call(sig, fresh())
            call.shadow(of).reshape(-1)[i] = 1
            call.shadow(wrt)
            call.run(rev)
            matrix[i, :] = np.reshape(call.derivative(wrt), -1)
    return matrix


def _size(sig: Signature, args: Sequence[Any], name: str) -> int:
    index = sig.param_index(name)
    if index is None or isinstance(sig.params[index].ctype, Scalar):
        return 1
    return int(np.size(args[index]))


def _element(ctype: Scalar | Pointer) -> Scalar:
    return ctype.element if isinstance(ctype, Pointer) else ctype


def _real(sig: Signature, name: str, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{sig.name}(): argument '{name}' must be a real number, "
                        f"not {type(value).__name__}") from None
