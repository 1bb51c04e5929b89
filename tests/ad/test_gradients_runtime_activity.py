"""Runtime activity (issue 13 item 2, Enzyme's `enzyme_runtime_activity` marker and
`--enzc-runtime-activity`): a pointer whose shadow is its primal is inactive at run
time. Programs under tests/ad/programs/runtime (a const pointer in a struct beside an
active one, `enzyme_dup, x, x`, a const pointer stored by the differentiated code, a
pointer chosen between const and active data, BLAS calls with an inactive argument
(a triangular matrix too),
an Eigen `Map<const>` expression, Eigen's HouseholderQR least-squares solve and
SelfAdjointEigenSolver, reverse mode only), each built by enzcc at -O0 and -O2, reverse and
forward mode, against central differences or analytic derivatives; they also check
that the inactive data is left unchanged. Without runtime activity the same programs
are compile-time errors (tests/ad/test_gradients_diagnostics.py) or write adjoints
into the inactive data."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradcheck import Program, discover, params, run_and_check

CONFIGS = ["-O0", "-O2"]
PROGRAMS = discover("runtime")


def test_programs_found() -> None:
    assert len(PROGRAMS) >= 6


@pytest.mark.parametrize(("prog", "config"), params(PROGRAMS, CONFIGS, {}))
def test_runtime_activity_derivative(prog: Program, config: str, tmp_path: Path, drivers) -> None:
    run_and_check(prog, config, tmp_path)
