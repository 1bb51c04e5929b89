"""Enzyme clang-plugin attributes/pragmas enzc does not support stop enzcc with a
located error; the supported ones (GNU spelling of enzyme_inactive and
enzyme_function_like) and the same words in comments or string literals do not
(enzc.frontend.enzyme_attributes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from enzc.frontend.enzyme_attributes import EnzymeAttributeError, check_source


@pytest.mark.parametrize(("source", "name", "where"), [
    ("__attribute__((enzyme_nofree)) double f(double);", "enzyme_nofree", ":1:16:"),
    ("__attribute__((noinline, enzyme_inactive_noblock)) double f(double);", "enzyme_inactive_noblock",
     ":1:26:"),
    ("int a;\n[[enzyme_inactive]] double f(double);", "enzyme_inactive", ":2:3:"),
    ("int a;\n[[enzyme::inactive]] double f(double);", "enzyme::inactive", ":2:3:"),
    ("int a;\n  #pragma enzyme checkpoint\n", "enzyme", ":2:11:"),
    ('const char *u = "http://x"; __attribute__(( enzyme_nofree )) void g(void);', "enzyme_nofree", ":1:45:"),
])
def test_rejected(tmp_path: Path, source: str, name: str, where: str) -> None:
    path = tmp_path / "x.c"
    path.write_text(source)
    with pytest.raises(EnzymeAttributeError) as info:
        check_source(str(path))
    message = str(info.value)
    assert f"'{name}'" in message and f"x.c{where}" in message and "hint:" in message


@pytest.mark.parametrize("source", [
    "// __attribute__((enzyme_inactive))\nint x;",
    "/* [[enzyme_inactive]]\n */ int y;",
    'const char *s = "__attribute__((enzyme_inactive))";',
    "__attribute__((noinline)) int z(void);",
    "#pragma once\n#pragma omp parallel\n",
    "__attribute__((enzyme_inactive)) double f(double);",
    "__attribute__((noinline, enzyme_inactive)) double g;",
    '__attribute__((enzyme_function_like("log1p"))) double h(double);',
])
def test_accepted(tmp_path: Path, source: str) -> None:
    path = tmp_path / "x.c"
    path.write_text(source)
    check_source(str(path))


def test_cxx11_spelling_names_the_supported_one(tmp_path: Path) -> None:
    path = tmp_path / "x.cpp"
    path.write_text("[[enzyme_inactive]] double f(double);")
    with pytest.raises(EnzymeAttributeError, match=r"__attribute__\(\(enzyme_inactive\)\)"):
        check_source(str(path))
