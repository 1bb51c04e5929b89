"""The Python API's costs, printed from one run (not a test):

- per-call overhead of `lib.f(a, b, n)` with two small arrays (and, for reference,
  the same call through ctypes, and `lib.f.grad`);
- at n = 1e6: `lib.loss.grad` from Python over the same gradient called natively
  in C (`native.c`, built by enzcc -shared, called in the same process; goal
  <= 1.05), and the same loss and gradient in torch ops (eager) and in JAX (jit),
  when those are installed.

Usage: .venv/bin/python -m benchmarks.python_api [--n 1000000] [--rounds 30]
Times are minima over repeated calls (on a shared machine the minimum is the least
noisy); the native and Python gradients alternate in one process.
"""

from __future__ import annotations

import argparse
import ctypes
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path

import numpy as np

import enzc

HERE = Path(__file__).resolve().parent
ENZCC = Path(sys.executable).parent / "enzcc"


def best(fn: Callable[[], object], reps: int) -> float:
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def per_call(fn: Callable[[], object], number: int = 200_000) -> float:
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def overheads(lib: enzc.Library) -> None:
    a, b = np.ones(2), np.ones(2)
    dot = lib.dot2
    raw = ctypes.CDLL(lib.path).dot2
    raw.restype, raw.argtypes = ctypes.c_double, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    grad = dot.grad
    print("per-call overhead, dot2(a, b, 2) with two float64 arrays of 2 elements:")
    print(f"  lib.dot2(a, b, 2)                     {per_call(lambda: dot(a, b, 2)) * 1e6:7.2f} us")
    ct = per_call(lambda: raw(a.ctypes.data, b.ctypes.data, 2), 50_000)
    print(f"  ctypes, for comparison                {ct * 1e6:7.2f} us")
    g = per_call(lambda: grad(a, b, 2), 20_000)
    print(f"  lib.dot2.grad(a, b, 2)                {g * 1e6:7.2f} us")


def native_gradient(tmp: str) -> Callable[[np.ndarray, np.ndarray, np.ndarray, int], float]:
    """native.c + loss.c built by enzcc -O2 as a shared object: (x, y, dx, reps) -> best s."""
    so = Path(tmp) / "native.so"
    subprocess.run([str(ENZCC), "-O2", "-shared", "-fPIC", str(HERE / "native.c"),
                    str(HERE / "loss.c"), "-lm", "-o", str(so)], check=True)
    fn = ctypes.CDLL(str(so)).native_gradient
    fn.restype = ctypes.c_double
    fn.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int] * 2
    return lambda x, y, dx, reps: fn(x.ctypes.data, y.ctypes.data, dx.ctypes.data, x.size, reps)


def inputs(n: int) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(n)
    return (i % 1000) / 500.0 - 1.0, (i % 77) / 77.0


def large(lib: enzc.Library, n: int, rounds: int) -> None:
    x, y = inputs(n)
    dx = np.zeros(n)
    with tempfile.TemporaryDirectory() as tmp:
        native_timer = native_gradient(tmp)
        python = native = float("inf")
        for _ in range(rounds):  # alternate, so both see the same machine load
            native = min(native, native_timer(x, y, dx, 3))
            python = min(python, best(lambda: lib.loss.grad(x, y, n), 3))
    np.testing.assert_allclose(lib.loss.grad(x, y, n), dx, rtol=1e-14)
    print(f"\ngradient of loss(x, y, n) at n = {n:.0e} (best of {3 * rounds}):")
    print(f"  native C (__enzyme_autodiff)          {native * 1e3:8.3f} ms")
    print(f"  lib.loss.grad from Python             {python * 1e3:8.3f} ms   "
          f"ratio {python / native:.3f} (goal <= 1.05)")
    objective = best(lambda: lib.loss(x, y, n), 3 * rounds)
    print(f"  lib.loss (objective only)             {objective * 1e3:8.3f} ms")
    for name, timer in (("torch ops (eager, backward)", _torch), ("JAX (jit grad)", _jax)):
        try:
            t = timer(x, y, 3 * rounds)
        except ImportError:
            print(f"  {name:37s} not installed")
            continue
        print(f"  {name:37s} {t * 1e3:8.3f} ms   ratio {t / native:.3f}")


def _torch(x: np.ndarray, y: np.ndarray, reps: int) -> float:
    import torch

    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def step() -> object:
        v = xt.detach().requires_grad_()
        r = v - yt
        (torch.log1p(r * r) + 0.5 * torch.sin(v)).mean().backward()
        return v.grad

    return best(step, reps)


def _jax(x: np.ndarray, y: np.ndarray, reps: int) -> float:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    grad = jax.jit(jax.grad(lambda v, w: jnp.mean(jnp.log1p((v - w) ** 2) + 0.5 * jnp.sin(v))))
    xj, yj = jnp.asarray(x), jnp.asarray(y)
    return best(lambda: grad(xj, yj).block_until_ready(), reps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e6)
    parser.add_argument("--rounds", type=int, default=30,
                        help="alternating rounds of 3 timed calls each")
    args = parser.parse_args()
    lib = enzc.load(files=[HERE / "loss.c"])
    overheads(lib)
    large(lib, int(args.n), args.rounds)


if __name__ == "__main__":
    main()
