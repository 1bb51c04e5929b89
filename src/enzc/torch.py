"""PyTorch adapter (the `enzc[torch]` extra): a loaded C function as a torch operator.

    layer = enzc.torch.function(lib.dense, outputs={"out": lambda x, w, n, m: (m,)})
    y = layer(x, w, n, m)          # torch tensors in, torch tensors out
    y.sum().backward()             # gradients by lib.dense.vjp

Each adapted function becomes two custom operators (`torch.library.custom_op`): the
call, and its vector-Jacobian product (the C function's reverse-mode derivative),
registered as the call's backward. Both have fake implementations that give the
output shapes, so `torch.compile` keeps them in its graphs as opaque operators
(no graph break) and AOTAutograd puts the vjp operator in the backward graph.
CPU tensors of the C element type; floating scalars may be tensors (they get
gradients) or Python numbers; integers are Python ints.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from enzc.python.adapter import Plan, ShapeSpec, plan
from enzc.python.ctype import Pointer
from enzc.python.library import Function
from enzc.python.wrappers import RESULT

__all__ = ["function"]

_SERIAL = itertools.count()


def function(fn: Function, outputs: Mapping[str, ShapeSpec] | Sequence[str] | str | None = None,
             batched: Sequence[str] = ()) -> Any:
    """A torch callable running `fn` forward and `fn.vjp` backward.

    It takes `fn`'s parameters except the output arrays named in `outputs` (see
    enzc.python.adapter), and returns one tensor per output (a tuple when there are
    several). Inputs named in `batched` carry an extra leading batch dimension: the C
    function is called once per slice (a loop in Python) and the outputs are stacked.
    """
    the_plan = plan(fn, outputs)
    names = [p.name for p in the_plan.inputs]
    for name in batched:
        if name not in names:
            raise ValueError(f"{fn.signature.name}: batched input '{name}' is not an input")
    batch = tuple(names.index(name) for name in batched)
    ops = _Operators(the_plan, batch)

    def call(*inputs: Any) -> Any:
        if len(inputs) != len(names):
            raise TypeError(f"{fn.signature.name}() takes {len(names)} arguments "
                            f"({', '.join(names)}), {len(inputs)} given")
        results = ops.call(*ops.as_operands(inputs))
        return results[0] if len(results) == 1 else tuple(results)

    call.__name__ = fn.signature.name
    call.__doc__ = f"{fn!r} as a torch operator"
    return call


class _Operators:
    """The call and vjp operators of one adapted function."""

    def __init__(self, the_plan: Plan, batch: tuple[int, ...]) -> None:
        self.plan, self.batch = the_plan, batch
        self.floating = [the_plan.is_floating(p) for p in the_plan.inputs]
        tensors = [f or isinstance(p.ctype, Pointer)
                   for f, p in zip(self.floating, the_plan.inputs)]
        serial = next(_SERIAL)
        base = f"enzc::{the_plan.fn.signature.name}_{serial}"
        operands = ", ".join(f"{'Tensor' if t else 'SymInt'} a{i}" for i, t in enumerate(tensors))
        self.call = torch.library.custom_op(base, self._call, mutates_args=(),
                                            schema=f"({operands}) -> Tensor[]")
        self.call.register_fake(self._fake_call)
        cotangents = ", ".join(f"Tensor c{k}" for k in range(len(the_plan.outputs)))
        self.vjp = torch.library.custom_op(f"{base}_vjp", self._vjp, mutates_args=(),
                                           schema=f"({operands}, {cotangents}) -> Tensor[]")
        self.vjp.register_fake(self._fake_vjp)
        self.call.register_autograd(self._backward, setup_context=self._setup_context)

    def as_operands(self, inputs: Sequence[Any]) -> list[Any]:
        """Floating scalars given as Python numbers become 0-d tensors (schema: Tensor)."""
        operands = []
        for value, floating, param in zip(inputs, self.floating, self.plan.inputs):
            if floating and not isinstance(value, torch.Tensor):
                value = torch.tensor(value, dtype=_torch_dtype(self.plan.dtype(param.name)))
            operands.append(value)
        return operands

    def _call(self, *operands: Any) -> list[torch.Tensor]:
        arrays = [_to_numpy(x) for x in operands]
        produced = [self._forward(s) for s in _slices(arrays, self.batch)]
        outs = []
        for k, (name, _) in enumerate(self.plan.outputs):
            values = [p[k] for p in produced]
            stacked = np.stack(values) if self.batch else values[0]
            outs.append(torch.from_numpy(np.array(stacked, dtype=self.plan.dtype(name))))
        return outs

    def _forward(self, inputs: Sequence[Any]) -> list[Any]:
        buffers = self.plan.buffers(inputs)
        result = self.plan.fn(*self.plan.c_arguments(inputs, buffers))
        return [result if name == RESULT else buffers[name] for name, _ in self.plan.outputs]

    def _fake_call(self, *operands: Any) -> list[torch.Tensor]:
        shapes = [self._output_shape(name, spec, operands) for name, spec in self.plan.outputs]
        return [_empty(operands, shape, self.plan.dtype(name))
                for shape, (name, _) in zip(shapes, self.plan.outputs)]

    def _output_shape(self, name: str, spec: ShapeSpec, operands: Sequence[Any]) -> list[int]:
        if not self.batch:
            return list(self.plan.shape(name, spec, operands))
        sliced = [x[0] if i in self.batch else x for i, x in enumerate(operands)]
        return [operands[self.batch[0]].shape[0], *self.plan.shape(name, spec, sliced)]

    def _vjp(self, *operands_and_cotangents: Any) -> list[torch.Tensor]:
        count = len(self.plan.inputs)
        arrays = [_to_numpy(x) for x in operands_and_cotangents[:count]]
        cotangents = [t.detach().numpy() for t in operands_and_cotangents[count:]]
        wanted = [i for i, f in enumerate(self.floating) if f]
        totals: dict[int, Any] = {}
        for b, inputs in enumerate(_slices(arrays, self.batch)):
            cots = {name: (c[b] if self.batch else c)
                    for (name, _), c in zip(self.plan.outputs, cotangents)}
            args = self.plan.c_arguments(inputs, self.plan.buffers(inputs))
            grads = self.plan.fn.vjp(*args, cotangents=cots,
                                     wrt=[self.plan.inputs[i].name for i in wanted])
            for i, g in zip(wanted, grads):
                if i in self.batch:
                    totals.setdefault(i, []).append(g)
                else:
                    totals[i] = totals.get(i, 0) + np.asarray(g)
        return [torch.from_numpy(np.array(np.stack(totals[i]) if i in self.batch else totals[i],
                                          dtype=self.plan.dtype(self.plan.inputs[i].name)))
                for i in wanted]

    def _fake_vjp(self, *operands_and_cotangents: Any) -> list[torch.Tensor]:
        operands = operands_and_cotangents[:len(self.plan.inputs)]
        return [torch.empty_like(x) for x, f in zip(operands, self.floating) if f]

    def _setup_context(self, ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        ctx.inputs = inputs

    def _backward(self, ctx: Any, grads: list[torch.Tensor | None]) -> tuple[Any, ...]:
        cotangents = [torch.zeros_like(o) if g is None else g.contiguous()
                      for g, o in zip(grads, self._fake_call(*ctx.inputs))]
        grads_in = iter(self.vjp(*ctx.inputs, *cotangents))
        return tuple(next(grads_in) if f else None for f in self.floating)


def _empty(operands: Sequence[Any], shape: Sequence[Any], dtype: np.dtype) -> torch.Tensor:
    """An empty tensor of `shape`/`dtype` (CPU, like every operand)."""
    return torch.empty(tuple(shape), dtype=_torch_dtype(dtype))


def _torch_dtype(dtype: np.dtype) -> torch.dtype:
    return torch.from_numpy(np.zeros(0, dtype)).dtype


def _slices(arrays: list[Any], batch: tuple[int, ...]) -> list[list[Any]]:
    if not batch:
        return [arrays]
    sizes = {len(arrays[i]) for i in batch}
    if len(sizes) != 1:
        raise ValueError(f"batched inputs have different batch sizes: {sorted(sizes)}")
    return [[a[b] if i in batch else a for i, a in enumerate(arrays)]
            for b in range(sizes.pop())]


def _to_numpy(value: Any) -> Any:
    """Tensors become NumPy arrays (0-d ones Python numbers); other values pass."""
    if isinstance(value, torch.Tensor):
        if value.device.type != "cpu":
            raise ValueError(f"enzc.torch: C functions take CPU tensors (got {value.device})")
        array = value.detach().numpy()
        return array.item() if array.ndim == 0 else np.ascontiguousarray(array)
    return value

