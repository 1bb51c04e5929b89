"""JAX adapter (the `enzc[jax]` extra): a loaded C function as a differentiable,
jit-compatible JAX function.

    loss = enzc.jax.function(lib.loss)                 # outputs as in enzc.torch
    jax.jit(jax.grad(lambda x: loss(x, n)))(x)

The C function runs through `jax.pure_callback` (on the host; XLA sees an opaque
call with known result shapes), its derivative through a `jax.custom_vjp` whose
backward pass is another callback running `vjp`. Integer parameters are static
(Python ints, hashable); arrays and floating scalars are traced, of the C element type
(float64 ones need `jax.config.update("jax_enable_x64", True)`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import jax
import numpy as np

from enzc.python.adapter import Plan, ShapeSpec, plan
from enzc.python.ctype import Pointer
from enzc.python.library import Function
from enzc.python.wrappers import RESULT

__all__ = ["function"]


def function(fn: Function,
             outputs: Mapping[str, ShapeSpec] | Sequence[str] | str | None = None) -> Any:
    """A JAX function of `fn`'s inputs (its parameters except the output arrays named
    in `outputs`) returning its outputs (one array, or a tuple when several)."""
    the_plan = plan(fn, outputs)
    static = tuple(i for i, p in enumerate(the_plan.inputs) if not isinstance(p.ctype, Pointer)
                   and not the_plan.is_floating(p))
    integer_arrays = {i for i, p in enumerate(the_plan.inputs)
                      if i not in static and not the_plan.is_floating(p)}
    single = len(the_plan.outputs) == 1

    @partial(jax.custom_vjp, nondiff_argnums=static)
    def call(*inputs: Any) -> Any:
        results = _call(the_plan, inputs)
        return results[0] if single else results

    def forward(*inputs: Any) -> tuple[Any, Any]:
        results = _call(the_plan, inputs)
        traced = tuple(x for i, x in enumerate(inputs) if i not in static)
        return (results[0] if single else results), traced

    def backward(*nondiff_residuals_cotangents: Any) -> tuple[Any, ...]:
        statics = nondiff_residuals_cotangents[:len(static)]
        traced, cotangents = nondiff_residuals_cotangents[len(static):]
        inputs = _merge(len(the_plan.inputs), static, statics, traced)
        cots = (cotangents,) if single else tuple(cotangents)
        shapes = tuple(jax.ShapeDtypeStruct(np.shape(x), the_plan.dtype(p.name))
                       for i, (x, p) in enumerate(zip(inputs, the_plan.inputs))
                       if i not in static and i not in integer_arrays)
        grads = iter(jax.pure_callback(partial(_vjp_on_host, the_plan, static, statics), shapes,
                                       traced, cots, vmap_method="sequential"))
        return tuple(None if i in integer_arrays else next(grads)
                     for i in range(len(the_plan.inputs)) if i not in static)

    call.defvjp(forward, backward)

    def entry(*inputs: Any) -> Any:
        if len(inputs) != len(the_plan.inputs):
            names = ", ".join(p.name for p in the_plan.inputs)
            raise TypeError(f"{fn.signature.name}() takes {len(the_plan.inputs)} arguments "
                            f"({names}), {len(inputs)} given")
        return call(*inputs)

    entry.__name__ = fn.signature.name
    entry.__doc__ = f"{fn!r} as a JAX function"
    return entry


def _call(the_plan: Plan, inputs: Sequence[Any]) -> tuple[Any, ...]:
    shapes = tuple(jax.ShapeDtypeStruct(the_plan.shape(name, spec, inputs), the_plan.dtype(name))
                   for name, spec in the_plan.outputs)
    traced = [i for i, p in enumerate(the_plan.inputs)
                if the_plan.is_floating(p) or isinstance(p.ctype, Pointer)]
    statics = {i: x for i, x in enumerate(inputs) if i not in traced}
    results = jax.pure_callback(partial(_call_on_host, the_plan, statics), shapes,
                                [inputs[i] for i in traced], vmap_method="sequential")
    return tuple(results)


def _call_on_host(the_plan: Plan, statics: dict[int, Any], traced: list[Any]) -> tuple[Any, ...]:
    values = iter(traced)
    inputs = [statics[i] if i in statics else _host(next(values))
              for i in range(len(the_plan.inputs))]
    buffers = the_plan.buffers(inputs)
    result = the_plan.fn(*the_plan.c_arguments(inputs, buffers))
    return tuple(np.asarray(result, the_plan.dtype(name)) if name == RESULT else buffers[name]
                 for name, _ in the_plan.outputs)


def _vjp_on_host(the_plan: Plan, static: tuple[int, ...], statics: tuple[Any, ...],
                 traced: Sequence[Any], cotangents: Sequence[Any]) -> tuple[Any, ...]:
    inputs = _merge(len(the_plan.inputs), static, statics, [_host(x) for x in traced])
    args = the_plan.c_arguments(inputs, the_plan.buffers(inputs))
    wrt = [p.name for i, p in enumerate(the_plan.inputs)
           if i not in static and the_plan.is_floating(p)]
    cots = {name: np.asarray(c) for (name, _), c in zip(the_plan.outputs, cotangents)}
    grads = the_plan.fn.vjp(*args, cotangents=cots, wrt=wrt)
    return tuple(np.asarray(g, the_plan.dtype(name)) for g, name in zip(grads, wrt))


def _merge(count: int, static: tuple[int, ...], statics: Sequence[Any],
           traced: Sequence[Any]) -> list[Any]:
    given, rest = iter(statics), iter(traced)
    return [next(given) if i in static else next(rest) for i in range(count)]


def _host(value: Any) -> Any:
    """A callback operand as the C call wants it: a contiguous array or a number."""
    array = np.asarray(value)
    return array.item() if array.ndim == 0 else np.ascontiguousarray(array)
