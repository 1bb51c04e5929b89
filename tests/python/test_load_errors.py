"""Bad input to enzc.load and to the loaded functions: clear exceptions naming the
problem, and no trace of a failed build in the cache."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import load_cached

import enzc

SOURCE = """
#include <math.h>
double energy(const double *x, int n) {
    double e = 0;
    for (int i = 0; i < n; i++) e += x[i] * x[i] * exp(x[i]);
    return e;
}
void scale(double *out, const double *in, int n, double k) {
    for (int i = 0; i < n; i++) out[i] = k * in[i];
}
typedef struct { double re, im; } Complex;
double by_value(Complex c) { return c.re; }
int count(int n) { return n + 1; }
"""


@pytest.fixture(scope="module")
def lib(enzc_cache):
    return load_cached(enzc_cache, SOURCE)


def lib_entries(cache: Path) -> list[Path]:
    return [p for p in (cache / "lib").glob("*/*")] if (cache / "lib").exists() else []


def staged(cache: Path) -> list[Path]:
    return list((cache / "tmp").glob("*")) if (cache / "tmp").exists() else []


def test_syntax_error_carries_diagnostics_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("ENZC_CACHE", str(tmp_path / "cache"))
    with pytest.raises(enzc.CompileError) as err:
        enzc.load("double f(double x) {\n  return x +;\n}\n")
    assert "source.c:2:" in str(err.value) and "error" in str(err.value)
    assert lib_entries(tmp_path / "cache") == [] and staged(tmp_path / "cache") == []


def test_error_in_a_file_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ENZC_CACHE", str(tmp_path / "cache"))
    bad = tmp_path / "model.c"
    bad.write_text("double f(double x) { return y; }\n")
    with pytest.raises(enzc.CompileError, match=r"model\.c:1:\d+: error: use of undeclared"):
        enzc.load(files=[bad])


def test_undefined_function_is_a_compile_error(tmp_path, monkeypatch):
    monkeypatch.setenv("ENZC_CACHE", str(tmp_path / "cache"))
    with pytest.raises(enzc.CompileError, match="undefined symbol: helper"):
        enzc.load("double helper(double);\ndouble f(double x) { return helper(x); }\n")
    assert lib_entries(tmp_path / "cache") == [] and staged(tmp_path / "cache") == []


def test_missing_file_and_bad_arguments():
    with pytest.raises(FileNotFoundError, match="nope.c"):
        enzc.load(files=["nope.c"])
    with pytest.raises(ValueError, match="lang"):
        enzc.load("int x;", lang="fortran")
    with pytest.raises(TypeError, match="flags"):
        enzc.load("int x;", flags="-O3")


def test_unknown_function(lib):
    with pytest.raises(AttributeError, match="no function 'energi'.*energy"):
        lib.energi


def test_unsupported_signature_says_why(lib):
    with pytest.raises(TypeError, match="by_value.*'c'.*struct passed by value"):
        lib.by_value


def test_argument_count(lib):
    x = np.ones(3)
    with pytest.raises(TypeError, match=r"energy\(\) takes 2 arguments \(x, n\), 1 given"):
        lib.energy(x)
    with pytest.raises(TypeError, match=r"energy\(\) takes 2 arguments"):
        lib.energy.grad(x, 3, 4)
    with pytest.raises(TypeError, match="missing argument: n"):
        lib.energy.grad(x)
    with pytest.raises(TypeError, match="no parameter 'm'"):
        lib.energy(x, m=3)


def test_dtype_contiguity_and_writability_name_the_argument(lib):
    with pytest.raises(TypeError, match="argument 'x' must be a float64 array"):
        lib.energy(np.ones(3, np.float32), 3)
    with pytest.raises(TypeError, match="argument 'x' must be a float64 array"):
        lib.energy.grad(np.ones(3, np.int64), 3)
    with pytest.raises(TypeError, match="argument 'x' must be a C-contiguous float64 array"):
        lib.energy([1.0, 2.0], 2)
    with pytest.raises(ValueError, match="argument 'x' must be C-contiguous"):
        lib.energy(np.ones(6)[::2], 3)
    with pytest.raises(ValueError, match="argument 'x' must be C-contiguous"):
        lib.energy.grad(np.ones((3, 3)).T, 9)
    frozen = np.ones(3)
    frozen.flags.writeable = False
    assert lib.energy(frozen, 3) == pytest.approx(3 * np.e)  # const: read-only is fine
    with pytest.raises(ValueError, match="argument 'out' is read-only.*double \\*out"):
        lib.scale(frozen, np.ones(3), 3, 2.0)
    with pytest.raises(TypeError, match="argument 'n' must be an integer, not str"):
        lib.energy(np.ones(3), "3")
    with pytest.raises(TypeError, match="argument 'k' must be a real number"):
        lib.scale(np.ones(3), np.ones(3), 3, "2")
    with pytest.raises(OverflowError, match="argument 'n' is out of range"):
        lib.energy(np.ones(3), 2**40)


def test_derivative_arguments(lib):
    x = np.ones(3)
    with pytest.raises(ValueError, match="wrt 'y' is not a parameter"):
        lib.energy.grad(x, 3, wrt="y")
    with pytest.raises(ValueError, match="wrt 'n' is not a floating-point"):
        lib.energy.grad(x, 3, wrt="n")
    with pytest.raises(TypeError, match="scale\\(\\) does not return a floating-point scalar"):
        lib.scale.grad(x, x, 3, 2.0)
    with pytest.raises(ValueError, match="cotangents 'in' is not an output.*out"):
        lib.scale.vjp(np.zeros(3), x, 3, 2.0, cotangents={"in": x})
    with pytest.raises(ValueError, match="'out' has 2 elements, 'out' has 3"):
        lib.scale.vjp(np.zeros(3), x, 3, 2.0, cotangents={"out": np.ones(2)})
    with pytest.raises(enzc.DifferentiationError, match="no floating-point input"):
        lib.count.jvp(3, tangents={})


def test_function_enzc_cannot_differentiate(tmp_path, monkeypatch):
    """The call works; its derivatives raise DifferentiationError with enzcc's message."""
    monkeypatch.setenv("ENZC_CACHE", str(tmp_path / "cache"))
    native = tmp_path / "mystery.c"
    native.write_text("double mystery(double x) { return 3 * x; }\n")
    obj = tmp_path / "mystery.o"
    subprocess.run(["clang-22", "-O2", "-fPIC", "-c", str(native), "-o", str(obj)], check=True)
    lib = enzc.load("double mystery(double);\n"
                    "double f(const double *x) { return mystery(x[0]); }\n"
                    "double g(const double *x) { return x[0] * x[1]; }\n", files=[obj])
    assert lib.f(np.array([2.0])) == 6.0
    with pytest.raises(enzc.DifferentiationError, match=r"f\(\):\n.*external function 'mystery'"):
        lib.f.grad(np.array([2.0]))
    with pytest.raises(enzc.DifferentiationError, match="external function 'mystery'"):
        lib.f.jvp(np.array([2.0]), tangents={"x": np.ones(1)})
    np.testing.assert_array_equal(lib.g.grad(np.array([2.0, 5.0])), [5.0, 2.0])  # unaffected
