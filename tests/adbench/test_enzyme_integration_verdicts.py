"""How `benchmarks.enzyme_integration` judges Enzyme's `-Xclang -verify` tests: a
refusal counts only at the line of an `expected-error` (or, for one placed in a
header, with clang's own message), and a test of remarks alone is not judged."""

from __future__ import annotations

from pathlib import Path

import adbench_support  # noqa: F401  (puts the repository on sys.path)
from benchmarks.enzyme_integration import ExpectedError, Recipe, build_and_run, expected_errors, recipe, refused

_TEST = """// RUN: %clang -O2 %s -S -emit-llvm -o /dev/null %loadClangEnzyme -Xclang -verify
double unknown(double);
double f(double x) {
    return unknown(x); // expected-error {{Enzyme: No reverse pass found for unknown}}
}
"""


def _write(tmp_path: Path, text: str, name: str = "err.c") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_expected_errors_are_read_with_their_lines(tmp_path: Path) -> None:
    header = "x; // expected-error@/root/enzyme/utils:48 {{static assertion failed}} expected-note {{}}\n"
    assert expected_errors(_write(tmp_path, _TEST)) == (ExpectedError(4, "Enzyme: No reverse pass found for unknown"),)
    assert expected_errors(_write(tmp_path, header, "h.cpp")) == (ExpectedError(None, "static assertion failed"),)
    how = recipe(_write(tmp_path, _TEST), "O2")
    assert how is not None and how.verify and "-verify" not in how.flags and len(how.expected_errors) == 1


def test_a_refusal_counts_only_at_an_expected_line(tmp_path: Path) -> None:
    source = _write(tmp_path, _TEST)
    expected = expected_errors(source)
    assert refused(source, "src/err.c:4:12: error: enzc: cannot differentiate call to 'unknown'\n", expected)
    assert not refused(source, "src/err.c:3:1: error: something else\n", expected)
    assert not refused(source, "clang: error: linker command failed with exit code 1\n", expected)
    in_header = (ExpectedError(None, "static assertion failed due to requirement"),)
    assert refused(source, "enzyme:104:19: error: static assertion failed due to requirement 'x'\n", in_header)


def test_a_test_of_remarks_alone_is_skipped_without_building(tmp_path: Path) -> None:
    remarks = _write(tmp_path, _TEST.replace("expected-error", "expected-remark"))
    how = recipe(remarks, "O2")
    assert how == Recipe(cxx=False, flags=how.flags, filecheck=False, verify=True, expected_errors=())
    outcome = build_and_run(["/nonexistent/compiler"], remarks, how, tmp_path, "x")
    assert outcome.verdict == "skip"
