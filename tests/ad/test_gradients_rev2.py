"""Issue 5 acceptance: reverse mode across calls (noinline helpers, recursion,
function pointers), heap memory, globals, custom derivatives, libraries and C++,
each program built by enzcc/enzc++ at -O0 and -O2."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradcheck import Program, discover, params, run_and_check

CONFIGS = ["-O0", "-O2"]
PROGRAMS = discover("rev2")

# Program name (or "name[config]") -> why it fails today. Strict: remove an entry as
# soon as its program passes.
XFAIL: dict[str, str] = {}


def test_enough_programs() -> None:
    assert len(PROGRAMS) >= 44


def test_xfail_table_names_programs() -> None:
    """A stale entry (renamed program or config) would silently stop guarding anything."""
    known = {p.name for p in PROGRAMS} | {f"{p.name}[{c}]" for p in PROGRAMS for c in CONFIGS}
    assert set(XFAIL) <= known, set(XFAIL) - known


@pytest.mark.parametrize(("prog", "config"), params(PROGRAMS, CONFIGS, XFAIL))
def test_gradient(prog: Program, config: str, tmp_path: Path, drivers) -> None:
    run_and_check(prog, config, tmp_path)
