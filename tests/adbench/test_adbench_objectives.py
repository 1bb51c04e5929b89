"""(a) The C objectives against reference values: ADBench's unit-test numbers
and the independent NumPy evaluation quoted in the data README, and for the
synthetic benchmarks independent pure-Python evaluations."""

from __future__ import annotations

import math

import pytest
import reference_models
from adbench_support import case

from benchmarks.adbench.runner import run_objective

# (file, program options, expected objective, relative tolerance).  The
# tolerance is the precision the README prints the value with.
GMM_REFERENCES = [
    ("gmm/test.txt", (), 8.07380408004976, 1e-13),
    ("gmm/1k/gmm_d2_K5.txt", (), -5240.590563, 1e-9),
    ("gmm/1k/gmm_d10_K25.txt", (), -25649.65262, 1e-9),
    ("gmm/1k/gmm_d20_K50.txt", (), -65629.50687, 1e-9),
    ("gmm/1k/gmm_d32_K100.txt", (), -77428.14828, 1e-9),
    ("gmm/1k/gmm_d64_K5.txt", (), -1304563.985, 1e-9),
    ("gmm/1k/gmm_d64_K100.txt", (), -352803.632, 1e-9),
    ("gmm/10k/gmm_d2_K5.txt", (), -52512.30605, 1e-9),
    ("gmm/10k/gmm_d10_K50.txt", (), -256917.5654, 1e-9),
    ("gmm/10k/gmm_d32_K200.txt", (), -1776772.388, 1e-9),
    ("gmm/2.5M/gmm_d2_K5.txt", ("--replicate",), -5929525.678, 1e-9),
    ("gmm/2.5M/gmm_d10_K10.txt", ("--replicate",), -55543119.72, 1e-9),
]

LSTM_REFERENCES = [
    ("lstm/lstm_l2_c1024.txt", 0.66666518, 1e-7),
    ("lstm/lstm_l2_c4096.txt", 0.6948563342, 1e-9),
    ("lstm/lstm_l4_c1024.txt", 0.7106766386, 1e-9),
    ("lstm/lstm_l4_c4096.txt", 0.6872684040, 1e-9),
]


@pytest.mark.parametrize(("path", "options", "expected", "rtol"), GMM_REFERENCES,
                         ids=[r[0] for r in GMM_REFERENCES])
def test_gmm_objective(manual_exes, path, options, expected, rtol):
    bench, inp = case("gmm", path, *options)
    (value,) = run_objective(manual_exes["gmm"], bench, inp)
    assert value == pytest.approx(expected, rel=rtol)


@pytest.mark.parametrize(("path", "expected", "rtol"), LSTM_REFERENCES, ids=[r[0] for r in LSTM_REFERENCES])
def test_lstm_objective(manual_exes, path, expected, rtol):
    bench, inp = case("lstm", path)
    (value,) = run_objective(manual_exes["lstm"], bench, inp)
    assert value == pytest.approx(expected, rel=rtol)


def _ba_outputs(manual_exes, path: str, *options: str) -> tuple[list[float], int]:
    bench, inp = case("ba", path, *options)
    outputs = run_objective(manual_exes["ba"], bench, inp)
    assert len(outputs) % 3 == 0
    return outputs, len(outputs) // 3


def test_ba_test_file_errors(manual_exes):
    outputs, p = _ba_outputs(manual_exes, "ba/test.txt")
    assert p == 10
    for i in range(p):
        assert outputs[2 * i] == pytest.approx(-0.269048849235189, rel=1e-13)
        assert outputs[2 * i + 1] == pytest.approx(0.259944792677902, rel=1e-13)
        assert outputs[2 * p + i] == pytest.approx(0.826092651516, rel=1e-12)


def test_ba_large_file_errors(manual_exes):
    """Every ba*_n* file holds the same camera; its first observations, on the
    first file, give the README's reprojection error."""
    outputs, p = _ba_outputs(manual_exes, "ba/ba1_n49_m7776_p31843.txt", "--limit", "12")
    assert p == 12
    for i in range(p):
        assert outputs[2 * i] == pytest.approx(0.101335837914414, rel=1e-13)
        assert outputs[2 * i + 1] == pytest.approx(-0.0689677659244811, rel=1e-13)
        assert outputs[2 * p + i] == pytest.approx(1 - 0.417022**2, rel=1e-13)


def test_ba_limit_keeps_the_header_problem(manual_exes):
    """Without --limit the program reads the header's full size: 3p outputs."""
    _, p = _ba_outputs(manual_exes, "ba/ba1_n49_m7776_p31843.txt")
    assert p == 31843


@pytest.mark.parametrize("n", [8, 64])
def test_fft_objective_is_the_dft_loss(manual_exes, n):
    bench, inp = case("fft", f"n={n}")
    (value,) = run_objective(manual_exes["fft"], bench, inp)
    assert value == pytest.approx(reference_models.fft_loss(n), rel=1e-12)


@pytest.mark.parametrize("method", ["euler", "rk4"])
def test_ode_objective(manual_exes, method):
    bench, inp = case(f"ode-{method}", "n=5,steps=40")
    (value,) = run_objective(manual_exes["ode"], bench, inp)
    assert value == pytest.approx(reference_models.ode_loss(5, 40, method), rel=1e-12)


def test_ode_methods_differ(manual_exes):
    """The --method switch reaches the program (Euler and RK4 give different losses)."""
    euler = run_objective(manual_exes["ode"], *case("ode-euler", "n=5,steps=40"))
    rk4 = run_objective(manual_exes["ode"], *case("ode-rk4", "n=5,steps=40"))
    assert not math.isclose(euler[0], rk4[0], rel_tol=1e-9)


def test_bruss_objective(manual_exes):
    """n=8 puts grid cells in the forcing disc; 20 steps of 0.01 pass t = 0.1."""
    bench, inp = case("bruss", "n=8,steps=20")
    (value,) = run_objective(manual_exes["bruss"], bench, inp)
    assert value == pytest.approx(reference_models.bruss_loss(8, 20), rel=1e-12)


def test_gpt_objective(manual_exes):
    """10 positions: two blocks of four rows in the matmuls and a remainder of two."""
    bench, inp = case("gpt", "v=11,t=5,c=8,l=2,h=2,b=2")
    (value,) = run_objective(manual_exes["gpt"], bench, inp)
    assert value == pytest.approx(reference_models.gpt_loss(11, 5, 8, 2, 2, 2), rel=1e-12)
