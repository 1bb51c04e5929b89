"""grad, vjp, jvp and jacobian of C functions loaded with enzc.load, against central
finite differences, for double and float builds of the same C code."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from conftest import PROGRAMS
from numeric import as64, jacobian_fd

TOLERANCE = {"double": dict(rtol=1e-5, atol=1e-6), "float": dict(rtol=1e-3, atol=1e-4)}


@dataclass(frozen=True)
class Case:
    name: str
    args: Callable[[np.dtype, np.random.Generator], list[Any]]
    wrt: tuple[str, ...]


def arr(rng: np.random.Generator, dtype: np.dtype, *shape: int, scale: float = 1.0) -> np.ndarray:
    return (scale * rng.standard_normal(shape)).astype(dtype)


CASES = [
    Case("sum_sin_exp", lambda t, r: [arr(r, t, 6), 6], ("x",)),
    Case("prefix_products", lambda t, r: [arr(r, t, 6), 6], ("x",)),
    Case("softmax_xent", lambda t, r: [arr(r, t, 12), np.array([0, 3, 1], np.int32), 3, 4],
         ("logits",)),
    Case("path_length", lambda t, r: [arr(r, t, 5, 2), 5], ("p",)),
    Case("gaussian_nll", lambda t, r: [arr(r, t, 6), 6, 0.3, 1.3], ("x", "mu", "sigma")),
    Case("dense_tanh", lambda t, r: [arr(r, t, 12, scale=0.5), arr(r, t, 4), arr(r, t, 3),
                                     np.zeros(3, t), 3, 4], ("a", "x", "b")),
    Case("square_axpy", lambda t, r: [0.7, arr(r, t, 5), arr(r, t, 5), 5], ("a", "x", "y")),
    Case("to_polar", lambda t, r: [arr(r, t, 8), np.zeros(4, t), np.zeros(4, t), 4], ("xy",)),
    Case("sum_cbrt_relu", lambda t, r: [arr(r, t, 6), 6], ("x",)),
    Case("smooth_energy", lambda t, r: [arr(r, t, 7), 7], ("x",)),
    Case("scratch_weighted", lambda t, r: [arr(r, t, 5), np.zeros(5, t), arr(r, t, 5), 5],
         ("x", "w")),
    Case("clip_count", lambda t, r: [np.array([-0.9, -0.2, 0.1, 0.3, 0.8, -0.4], t),
                                     np.zeros(6, t), 6, -0.5, 0.5], ("x", "lo", "hi")),
]
IDS = [c.name for c in CASES]


def setup(lib: Any, lib64: Any, case: Case, real: str) -> tuple[Any, Any, list[Any]]:
    dtype = np.float64 if real == "double" else np.float32
    args = case.args(np.dtype(dtype), np.random.default_rng(7))
    return getattr(lib, case.name), getattr(lib64, case.name), args


def expected_vjp(fn64: Any, args: list[Any], cotangents: dict[str, Any], wrt: str) -> np.ndarray:
    total = 0
    for of, cot in cotangents.items():
        total = total + np.reshape(cot, -1) @ jacobian_fd(fn64, as64(args), wrt, of)
    return np.asarray(total)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_vjp_matches_finite_differences(functions_lib, functions_f64, real, case):
    fn, fn64, args = setup(functions_lib, functions_f64, case, real)
    rng = np.random.default_rng(1)
    outputs = fn64(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in as64(args)])
    cotangents: dict[str, Any] = {}
    for name in fn.outputs:
        if name == "return":
            cotangents[name] = float(rng.uniform(0.5, 2))
        else:
            cotangents[name] = rng.standard_normal(np.shape(args[fn.signature.param_index(name)]))
    del outputs
    got = fn.vjp(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args],
                 cotangents=cotangents, wrt=case.wrt)
    for name, value in zip(case.wrt, got):
        want = expected_vjp(fn64, args, cotangents, name)
        np.testing.assert_allclose(np.reshape(value, -1), want, **TOLERANCE[real],
                                   err_msg=f"{case.name}: d/d{name}")
        if isinstance(value, np.ndarray):
            original = args[fn.signature.param_index(name)]
            assert value.shape == np.shape(original) and value.dtype == original.dtype


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_jvp_matches_finite_differences(functions_lib, functions_f64, real, case):
    fn, fn64, args = setup(functions_lib, functions_f64, case, real)
    rng = np.random.default_rng(2)
    tangents = {}
    for name in case.wrt:
        value = args[fn.signature.param_index(name)]
        tangents[name] = rng.standard_normal(np.shape(value)) if np.ndim(value) else 0.7
    got = fn.jvp(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args],
                 tangents=tangents)
    assert sorted(got) == sorted(fn.outputs)
    for of in fn.outputs:
        want = sum(jacobian_fd(fn64, as64(args), w, of) @ np.reshape(t, -1)
                   for w, t in tangents.items())
        np.testing.assert_allclose(np.reshape(got[of], -1), want, **TOLERANCE[real],
                                   err_msg=f"{case.name}: tangent of {of}")


SCALAR_CASES = [c for c in CASES if c.name not in ("dense_tanh", "square_axpy", "to_polar",
                                                   "clip_count")]


@pytest.mark.parametrize("case", SCALAR_CASES, ids=[c.name for c in SCALAR_CASES])
def test_value_and_grad(functions_lib, functions_f64, real, case):
    fn, fn64, args = setup(functions_lib, functions_f64, case, real)
    value, grads = fn.value_and_grad(*args, wrt=case.wrt)
    assert value == pytest.approx(fn(*args), rel=1e-6)
    assert isinstance(grads, tuple) and len(grads) == len(case.wrt)
    for name, g in zip(case.wrt, grads):
        want = jacobian_fd(fn64, as64(args), name, "return")[0]
        np.testing.assert_allclose(np.reshape(g, -1), want, **TOLERANCE[real])
        single = fn.grad(*args, wrt=name)  # the one-parameter grad wrappers
        np.testing.assert_allclose(np.reshape(single, -1), want, **TOLERANCE[real])


@pytest.mark.parametrize("name,of,wrt", [("dense_tanh", "out", "x"), ("dense_tanh", "out", "a"),
                                         ("to_polar", "theta", "xy"), ("gaussian_nll", None, "x")])
def test_jacobian(functions_lib, functions_f64, real, name, of, wrt):
    case = next(c for c in CASES if c.name == name)
    fn, fn64, args = setup(functions_lib, functions_f64, case, real)
    before = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
    jac = fn.jacobian(*args, wrt=wrt, of=of)
    want = jacobian_fd(fn64, as64(args), wrt, of or "return")
    assert jac.shape == want.shape
    np.testing.assert_allclose(jac, want, **TOLERANCE[real])
    for a, b in zip(args, before):  # the caller's arrays are untouched
        np.testing.assert_array_equal(a, b)


def test_grad_defaults_to_first_floating_parameter(functions_f64):
    x = np.linspace(-1, 1, 6)
    g = functions_f64.gaussian_nll.grad(x, 6, 0.1, 2.0)
    np.testing.assert_allclose(g, jacobian_fd(functions_f64.gaussian_nll, [x, 6, 0.1, 2.0],
                                              "x", "return")[0], rtol=1e-6)
    by_position = functions_f64.gaussian_nll.grad(x, 6, 0.1, 2.0, wrt=(2, 3))
    by_name = functions_f64.gaussian_nll.grad(x, 6, 0.1, 2.0, wrt=("mu", "sigma"))
    assert by_position == by_name and all(isinstance(v, float) for v in by_name)


def test_keyword_arguments(functions_f64):
    x = np.linspace(-1, 1, 6)
    fn = functions_f64.gaussian_nll
    assert fn(x, 6, sigma=2.0, mu=0.1) == fn(x, 6, 0.1, 2.0)
    assert fn.grad(x=x, n=6, mu=0.1, sigma=2.0, wrt="mu") == fn.grad(x, 6, 0.1, 2.0, wrt="mu")


def test_other_translation_unit(enzc_cache, real):
    import enzc

    flags = [] if real == "double" else ["-DREAL=float"]
    lib = enzc.load(files=[PROGRAMS / "uses_helper.c", PROGRAMS / "helper.c"], flags=flags)
    lib64 = enzc.load(files=[PROGRAMS / "uses_helper.c", PROGRAMS / "helper.c"])
    assert "weighted_dot" in lib.functions  # exported by the helper's unit too
    dtype = np.float64 if real == "double" else np.float32
    rng = np.random.default_rng(3)
    w, x = rng.standard_normal(5).astype(dtype), rng.standard_normal(5).astype(dtype)
    args = [w, x, 5, 0.25]
    grads = lib.regularized.grad(*args, wrt=("w", "x", "lambda"))
    for name, g in zip(("w", "x", "lambda"), grads):
        want = jacobian_fd(lib64.regularized, as64(args), name, "return")[0]
        np.testing.assert_allclose(np.reshape(g, -1), want, **TOLERANCE[real])


def test_cxx_extern_c(enzc_cache, real):
    import enzc

    flags = [] if real == "double" else ["-DREAL=float"]
    lib = enzc.load(files=[PROGRAMS / "mlp.cpp"], flags=flags)
    lib64 = enzc.load(files=[PROGRAMS / "mlp.cpp"])
    dtype = np.float64 if real == "double" else np.float32
    rng = np.random.default_rng(4)
    args = [rng.standard_normal(6).astype(dtype), rng.standard_normal(2).astype(dtype),
            rng.standard_normal(3).astype(dtype), 0.3, 3, 2]
    grads = lib.mlp_loss.grad(*args, wrt=("w1", "w2", "x", "target"))
    for name, g in zip(("w1", "w2", "x", "target"), grads):
        want = jacobian_fd(lib64.mlp_loss, as64(args), name, "return")[0]
        np.testing.assert_allclose(np.reshape(g, -1), want, **TOLERANCE[real])


def test_static_library_helper(enzc_cache, tmp_path):
    """The helper comes from a static library of `enzcc -c` objects."""
    import subprocess
    import sys
    from pathlib import Path

    import enzc

    enzcc = str(Path(sys.executable).parent / "enzcc")
    subprocess.run([enzcc, "-O2", "-c", str(PROGRAMS / "helper.c"),
                    "-o", str(tmp_path / "helper.o")], check=True)
    subprocess.run(["llvm-ar-22", "rcs", str(tmp_path / "libhelper.a"), str(tmp_path / "helper.o")],
                   check=True)
    lib = enzc.load(files=[PROGRAMS / "uses_helper.c", tmp_path / "libhelper.a"])
    w, x = np.linspace(0.1, 0.5, 5), np.linspace(-1, 1, 5)
    g = lib.regularized.grad(w, x, 5, 0.1, wrt="x")
    np.testing.assert_allclose(g, jacobian_fd(lib.regularized, [w, x, 5, 0.1], "x", "return")[0],
                               rtol=1e-6, atol=1e-8)
