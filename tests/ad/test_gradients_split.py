"""Split reverse mode (__enzyme_augmentfwd / __enzyme_reverse): the forward pass
returns a tape, the reverse pass consumes it later, after the caller changed memory.
Each program built by enzcc at -O0 and -O2, against analytic derivatives."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradcheck import Program, discover, params, run_and_check

CONFIGS = ["-O0", "-O2"]
PROGRAMS = discover("split")


def test_programs_found() -> None:
    assert len(PROGRAMS) >= 2


@pytest.mark.parametrize(("prog", "config"), params(PROGRAMS, CONFIGS, {}))
def test_split_derivative(prog: Program, config: str, tmp_path: Path, drivers) -> None:
    run_and_check(prog, config, tmp_path)
