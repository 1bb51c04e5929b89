"""Central finite differences of loaded C functions, for checking their derivatives.

Float32 builds are checked against differences of the double build of the same C
code at the same point: differences in float32 itself are too noisy to tell a small
derivative error from rounding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

STEP = 1e-6


def outputs_of(fn: Any, args: Sequence[Any]) -> dict[str, np.ndarray]:
    """Call `fn` on copies of `args`; return its floating outputs as float64 arrays."""
    copies = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
    result = fn(*copies)
    found = {}
    for name in fn.outputs:
        if name == "return":
            found[name] = np.array([result], dtype=np.float64)
        else:
            found[name] = np.asarray(copies[fn.signature.param_index(name)], dtype=np.float64)
    return found


def jacobian_fd(fn: Any, args: Sequence[Any], wrt: str, of: str) -> np.ndarray:
    """d(of)/d(wrt) by central differences: (size(of), size(wrt))."""
    index = fn.signature.param_index(wrt)
    base = args[index]
    scalar = not isinstance(base, np.ndarray)
    flat = np.atleast_1d(np.array(base, dtype=np.float64)).reshape(-1)
    columns = []
    for j in range(flat.size):
        probes = []
        for sign in (1, -1):
            moved = flat.copy()
            moved[j] += sign * STEP
            value: Any = float(moved[0]) if scalar else moved.reshape(np.shape(base))
            probe = list(args)
            probe[index] = value
            probes.append(outputs_of(fn, probe)[of].reshape(-1))
        columns.append((probes[0] - probes[1]) / (2 * STEP))
    return np.stack(columns, axis=1)


def as64(args: Sequence[Any]) -> list[Any]:
    """The float64 twin of float32 arguments (integers unchanged)."""
    return [a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype == np.float32
            else a for a in args]


def reference(fn64: Any) -> Callable[[Sequence[Any], str, str], np.ndarray]:
    """A finite-difference Jacobian taker on the double build."""
    return lambda args, wrt, of: jacobian_fd(fn64, as64(args), wrt, of)
