"""Soundness of `std::string` bytes in differentiated C++ (issue 13): a string whose
characters carry an active double's bytes (a map key or value built from them, a
key copied from a constant string and then overwritten) must either differentiate
correctly (checked against the program's reference) or stop at compile time with a
located error — never run with a zero or wrong derivative. Each program is built at
-O0 and -O2; whichever of the two outcomes happens is checked in full, so the test
keeps guarding when the engine learns to type such bytes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gradcheck import build, discover, run_and_check

CONFIGS = ["-O0", "-O2"]
STRINGS = discover("strings")


def test_programs_found() -> None:
    assert len(STRINGS) >= 3


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("prog", STRINGS, ids=lambda p: p.name)
def test_correct_or_located_error(prog, config: str, tmp_path: Path, drivers) -> None:
    built = build(prog, config, tmp_path)
    if built.exe is not None:
        run_and_check(prog, config, tmp_path)  # it compiled: the gradient must be right
        return
    err = built.stderr
    assert built.returncode == 1, f"expected exit code 1, got {built.returncode}:\n{err}"
    assert "Traceback" not in err and "internal error" not in err, err
    assert "error: enzc:" in err, err
    assert re.search(r"(?i)floating-point|type", err), err
    assert "hint:" in err and "in function" in err, err  # located: the function and instruction
    assert not (tmp_path / "prog").exists(), "a failed build left its output file behind"
