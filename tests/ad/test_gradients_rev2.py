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
XFAIL: dict[str, str] = {
    "cxx/unordered_map_string_copy": "a key copied from an lvalue string: the characters' type is not known "
                                     "(nothing says a string holds no double's bytes), and the node's _M_p "
                                     "merges its buffer with _M_create's block: located error 'the i64 stored "
                                     "here ... used as two different types'",
    "cxx/map_string": "the string key's heap block from libstdc++'s _M_create has no shadow: located error "
                      "'cannot compute the shadow of call' (making _M_create an allocator needs the characters "
                      "typed soundly first, see docs/ad.md Known limits)",
}


def test_enough_programs() -> None:
    assert len(PROGRAMS) >= 44


def test_xfail_table_names_programs() -> None:
    """A stale entry (renamed program or config) would silently stop guarding anything."""
    known = {p.name for p in PROGRAMS} | {f"{p.name}[{c}]" for p in PROGRAMS for c in CONFIGS}
    assert set(XFAIL) <= known, set(XFAIL) - known


@pytest.mark.parametrize(("prog", "config"), params(PROGRAMS, CONFIGS, XFAIL))
def test_gradient(prog: Program, config: str, tmp_path: Path, drivers) -> None:
    run_and_check(prog, config, tmp_path)
