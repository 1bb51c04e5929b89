"""The gradient harness itself: a check that cannot fail proves nothing, so these
tests feed gradcheck outputs that must be rejected, and validate every program header."""

from __future__ import annotations

import re

import pytest

from gradcheck import (PROGRAMS, Tolerance, check_output, discover, parse_header,
                       parse_tolerance)

TOL = Tolerance(rel=1e-9, abs=1e-12)


def test_accepts_agreeing_lines() -> None:
    out = "hello\ngrad a 1.0000000000001 1\ngrad b -2 -2\n"
    assert [g.name for g in check_output(out, TOL, 2)] == ["a", "b"]


@pytest.mark.parametrize("stdout", [
    "",                                     # nothing printed
    "gradient 1 1\n",                       # malformed
    "grad a 1 1\n",                         # fewer lines than declared
    "grad a 1 1\ngrad b 1.1 1\n",           # out of tolerance
    "grad a nan nan\ngrad b 1 1\n",         # NaN on both sides is still a failure
    "grad a 1 1\ngrad b inf inf\n",
    "grad a 0 1e-3\ngrad b 1 1\n",          # zero gradient where one is expected
    "grad a 1 1\ngrad b 1 1 extra\n",
])
def test_rejects(stdout: str) -> None:
    with pytest.raises(AssertionError):
        check_output(stdout, TOL, 2)


def test_tolerance_is_relative_to_reference() -> None:
    t = Tolerance(rel=1e-6, abs=0.0)
    assert t.accepts(1e6 + 0.5, 1e6)
    assert not t.accepts(1.5e-6, 1e-6)
    assert parse_tolerance("rel=1e-6 abs=1e-9") == Tolerance(1e-6, 1e-9)
    with pytest.raises(ValueError):
        parse_tolerance("abs=1")


@pytest.mark.parametrize("subdir", ["rev1", "rev2"])
def test_program_headers(subdir: str) -> None:
    programs = discover(subdir)
    assert len(programs) >= 44
    names = [p.name for p in programs]
    assert len(names) == len(set(names))
    for p in programs:
        assert p.grads > 0, p.name
        assert 0 < p.tol.rel <= 1e-5, f"{p.name}: tolerance looser than the harness allows"
        for extra in (*p.sources, *p.objects):
            assert extra.exists(), f"{p.name}: missing {extra}"
        text = p.path.read_text()
        for helper in re.findall(r'^#include "([^"]+)"', text, re.MULTILINE):  # a body shared by two builds
            text += (p.path.parent / helper).read_text()
        assert "__enzyme_autodiff" in text or p.sources or p.make, p.name


def test_every_source_is_a_program_or_a_named_helper() -> None:
    """A source without a `tol:` header must say whose helper it is, so no test is lost."""
    for sub in ("rev1", "rev2"):
        for path in (PROGRAMS / sub).rglob("*"):
            if path.suffix in (".c", ".cpp", ".ll", ".h", ".hpp") and "tol" not in parse_header(path):
                first = path.read_text().split("\n", 1)[0]
                assert "Helper for" in first, f"{path}: neither a program nor a helper"
