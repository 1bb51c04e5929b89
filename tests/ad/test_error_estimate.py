"""`__enzyme_error_estimate` (Enzyme's forward error mode): programs built by enzcc at
-O0 and -O2 print the estimate beside the reference formula of that semantics
(`programs/errest/errest.h`: each rounding operation's error is the larger of one
ulp of its result and the sum of |partial * operand error * operand / result|),
evaluated independently in C."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradcheck import Program, discover, params, run_and_check

CONFIGS = ["-O0", "-O2"]
PROGRAMS = discover("errest")


def test_programs_found() -> None:
    assert len(PROGRAMS) >= 4


@pytest.mark.parametrize(("prog", "config"), params(PROGRAMS, CONFIGS, {}))
def test_error_estimate(prog: Program, config: str, tmp_path: Path, drivers) -> None:
    run_and_check(prog, config, tmp_path)
