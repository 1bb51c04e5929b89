"""Brief mutation fuzzing in the test suite (make test); `make fuzz` runs it for long.

Each test draws cases with hypothesis (derandomized: the same cases every run, and a
failure is shrunk to a smaller mutation sequence) and asserts the oracle's verdict
(harness.py): no traceback, crash, hang, leftover or partial output, no invalid IR
accepted or printed. ENZC_FUZZ_EXAMPLES=N scales the number of cases per kind.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases import judge, make_case
from harness import Run, _failure_of, _llvm_crash
from seeds import Seeds

SCALE = float(os.environ.get("ENZC_FUZZ_EXAMPLES", "1"))
EXAMPLES = {"ll": 80, "bc": 20, "obj": 12, "ar": 12}
"""About a minute of CPU in all on the development machine."""


def _settings(kind: str) -> settings:
    return settings(max_examples=max(1, int(EXAMPLES[kind] * SCALE)), deadline=None,
                    derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def _check(kind: str, rnd: random.Random, seeds: Seeds, tmp_path: Path) -> None:
    work = tmp_path / f"{kind}-case"
    shutil.rmtree(work, ignore_errors=True)  # hypothesis replays cases while shrinking
    verdict = judge(kind, make_case(kind, rnd, seeds, work), work)
    assert not verdict.failed, (f"{kind} case in {work}: {verdict.outcome}\n"
                                f"{verdict.detail}")


@pytest.mark.parametrize("kind", ["ll", "bc", "obj", "ar"])
def test_mutants_get_a_clean_answer(kind: str, seeds: Seeds, tmp_path: Path) -> None:
    @_settings(kind)
    @given(rnd=st.randoms(use_true_random=False))
    def run(rnd: random.Random) -> None:
        _check(kind, rnd, seeds, tmp_path)

    run()


def test_llvm_crash_is_told_apart_from_a_syntax_error(tmp_path: Path) -> None:
    """ll:3102377: llvm-as-22 segfaulted in its verifier. A crash is LLVM's "no" (enzc
    rejecting is right, accepting is a failure); the verdict says whether LLVM's parser
    takes the input without verification, or rejects it as a syntax error."""
    valid, broken = tmp_path / "valid.ll", tmp_path / "broken.ll"
    valid.write_text("define void @f() {\n  ret void\n}\n")
    broken.write_text("define void @f() {\n  ret i32 0\n}\n")
    segfault = Run(-11, "Segmentation fault", 0.1)
    assert _llvm_crash("ll", Run(1, "error", 0.1), broken, tmp_path) is None
    assert "verifying it; it parses without -verify" in _llvm_crash("ll", segfault, valid, tmp_path)
    assert "without verification: " in _llvm_crash("ll", segfault, broken, tmp_path)


def test_internal_errors_are_enzcs_own(tmp_path: Path) -> None:
    """obj:6806173: GNU ld aborted ("BFD ... internal error") on a corrupt object, as
    it does under clang-22; that is the linker's answer, not an internal error of enzcc.
    enzc's own (exit 70, `enzcc: internal error`, a located `error: internal error`)
    stay failures."""
    ld = ("/usr/bin/ld: BFD (GNU Binutils for Debian) 2.40 internal error, aborting at merge.c:934\n"
          "clang-22: error: linker command failed with exit code 1 (use -v to see invocation)\n")
    assert _failure_of("obj", Run(1, ld, 0.1), tmp_path, None) is None
    for code, stderr in [(70, "enzcc: internal error: KeyError: 'x' (please report)\n"),
                         (1, "enzcc: internal error: KeyError: 'x'\n"),
                         (1, "a.c:3:1: error: internal error: a loop value is needed outside its loop\n")]:
        verdict = _failure_of("obj", Run(code, stderr, 0.1), tmp_path, None)
        assert verdict is not None and verdict.outcome == "internal", stderr
