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
