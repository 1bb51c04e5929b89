"""BLAS calls (issue 13 item 1): CBLAS and Fortran level 1-3 routines in reverse,
forward and split mode, float and double, both layouts, transposes, increments and
leading dimensions; the triangular trmv, trsv, trmm and trsm (every side, triangle
and diagonal, and solves with a Cholesky factor); LAPACK's dlascl and dpotrf
(forward) from OpenBLAS; cuBLAS's API
over host stubs. Each program built by enzcc at -O0 and -O2, linked against OpenBLAS
and checked against central differences (tests/ad/programs/blas)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradcheck import Program, discover, params, run_and_check

CONFIGS = ["-O0", "-O2"]
PROGRAMS = discover("blas")

def test_programs_found() -> None:
    assert len(PROGRAMS) >= 8


@pytest.mark.parametrize(("prog", "config"), params(PROGRAMS, CONFIGS, {}))
def test_blas_derivative(prog: Program, config: str, tmp_path: Path, drivers) -> None:
    run_and_check(prog, config, tmp_path)
