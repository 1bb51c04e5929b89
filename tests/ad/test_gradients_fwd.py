"""Forward mode (__enzyme_fwddiff): scalars, memory, calls, custom forward
derivatives, C++ and forward over reverse, each program built by enzcc/enzc++ at
-O0 and -O2 and checked against analytic derivatives."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradcheck import Program, discover, params, run_and_check

CONFIGS = ["-O0", "-O2"]
PROGRAMS = discover("fwd")


def test_programs_found() -> None:
    assert len(PROGRAMS) >= 8


@pytest.mark.parametrize(("prog", "config"), params(PROGRAMS, CONFIGS, {}))
def test_forward_derivative(prog: Program, config: str, tmp_path: Path, drivers) -> None:
    run_and_check(prog, config, tmp_path)
