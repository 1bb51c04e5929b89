"""(b) The hand-written derivatives against central finite differences of the
objective (every entry, dense, so a Jacobian's zeros are checked too) and
against the reference gradient values of the data README."""

from __future__ import annotations

import pytest
from adbench_support import FD_RTOL, SMALLEST, case

from benchmarks.adbench.compare import worst_error
from benchmarks.adbench.runner import run_check, run_fd

FD_CASES = [(name, args) for name, args in SMALLEST.items()] + [
    ("gmm", ("gmm/1k/gmm_d2_K5.txt",)),
    ("gmm", ("gmm/1k/gmm_d10_K5.txt",)),
    ("ba", ("ba/ba1_n49_m7776_p31843.txt", "--limit", "12")),
    ("lstm", ("lstm/lstm_l4_c1024.txt", "--truncate", "50")),
    ("ode-euler", ("n=16,steps=300",)),
    ("ode-rk4", ("n=16,steps=300",)),
    ("fft", ("n=8",)),
    ("bruss", ("n=6,steps=30",)),
    ("gpt", ("v=7,t=9,c=12,l=1,h=3,b=1",)),
]


@pytest.mark.parametrize(("name", "args"), FD_CASES, ids=[f"{n}:{' '.join(a)}" for n, a in FD_CASES])
def test_manual_derivative_matches_finite_differences(manual_exes, name, args):
    bench, inp = case(name, *args)
    exe = manual_exes[bench.program]
    derivative = run_check(exe, bench, inp)
    fd = run_fd(exe, bench, inp)
    dense = derivative.dense()
    assert (len(dense), len(dense[0])) == (len(fd), len(fd[0]))
    worst = worst_error([v for row in fd for v in row], [v for row in dense for v in row])
    assert worst.error <= FD_RTOL, f"{name}: manual derivative vs FD, {worst}"


GMM_TEST_GRADIENT = [
    0.108662855508652, -0.741270039523898, 0.632607184015246, 1.11692576532787, 0.163333013551455,
    -0.0219989824071193, 0.227778292254236, 1.20963025612832, -0.0606375920733956, 2.58529994051162,
    0.112632694524214, 0.385744309849612, 0.0735180573182306, 5.41836362715595, -0.321494409677446,
    1.71892309775005, 0.860091090790867, -0.994640930466323,
]


def test_gmm_manual_gradient_matches_adbench(manual_exes):
    bench, inp = case("gmm", "gmm/test.txt")
    got = run_check(manual_exes["gmm"], bench, inp)
    assert got.outputs[0] == pytest.approx(8.07380408004976, rel=1e-13)
    assert (got.nrows, got.ncols) == (1, 18)
    worst = worst_error(got.values, GMM_TEST_GRADIENT)
    assert worst.error <= 1e-12, str(worst)


def _ba_jacobian(manual_exes, path: str, *options: str):
    bench, inp = case("ba", path, *options)
    return run_check(manual_exes["ba"], bench, inp)


def _expected_pattern(n: int, m: int, p: int) -> tuple[list[int], list[int]]:
    """The README's sparsity: rows 2i, 2i+1 -> camera i mod n (11 columns),
    point i mod m (3), weight i (1); row 2p+i -> weight i."""
    rowptr, cols = [0], []
    for i in range(p):
        block = [11 * (i % n) + j for j in range(11)] + [11 * n + 3 * (i % m) + j for j in range(3)]
        for _ in range(2):
            cols += block + [11 * n + 3 * m + i]
            rowptr.append(len(cols))
    for i in range(p):
        cols.append(11 * n + 3 * m + i)
        rowptr.append(len(cols))
    return rowptr, cols


def test_ba_test_file_jacobian_matches_adbench(manual_exes):
    J = _ba_jacobian(manual_exes, "ba/test.txt")
    n, m, p = 2, 10, 10
    assert (J.nrows, J.ncols) == (3 * p, 11 * n + 3 * m + p)
    assert (J.rowptr, J.cols) == _expected_pattern(n, m, p)
    assert J.values[:3] == pytest.approx([228.877202208247, 634.574811495545, -782.222866259341], rel=1e-12)
    assert J.values[2 * 15 * p:] == pytest.approx([-0.834044] * p, rel=1e-12)


BA_LARGE_ROW0 = [
    -461.446321, 178.867928, -19.4239165, -3.06159834, 6.39245756, -3.34028228, 0.264760249, 0.417022, 0,
    243.628246, 676.486778, 3.06159834, -6.39245756, 3.34028228, 0.242998782,
]


def test_ba_large_file_block_matches_readme(manual_exes):
    """The README prints the block row to 9-10 digits: agreement to 5e-9."""
    J = _ba_jacobian(manual_exes, "ba/ba1_n49_m7776_p31843.txt", "--limit", "12")
    assert (J.rowptr, J.cols) == _expected_pattern(12, 12, 12)
    for obs in range(12):
        row = J.values[2 * 15 * obs: 2 * 15 * obs + 15]
        worst = worst_error(row, BA_LARGE_ROW0)
        assert worst.error <= 5e-9, f"observation {obs}: {worst}"
