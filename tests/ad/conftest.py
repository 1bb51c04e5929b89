"""Fixtures for the end-to-end gradient tests.

Every test builds into its own pytest `tmp_path`, so tests share no files and run
safely under `pytest -n 2` (xdist). The drivers are the ones `scripts/setup.sh`
installs into .venv/bin.

Every enzcc run of these tests verifies the AD stage's output with enzc.ir's verifier
(ENZC_VERIFY=1, like --enzc-verify; about 5% of a build's time), so a malformed
derivative fails with the function and instruction at fault. Not yet under
--enzc-ad-before-opt: there, augmented C++ functions return arguments of the
function they were made from (`insertvalue ... %arg0`, named like their own
arguments, so the text is right but the IR objects are not; see
tests/ad/programs/rev2/cxx/exceptions_enabled.cpp), which the verifier reports.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gradcheck import ENZCC, ENZCXX  # noqa: E402


_UNVERIFIED = {"test_gradients_ad_before_opt"}


@pytest.fixture(autouse=True)
def verify_ad_output(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """ENZC_VERIFY=1 for the enzcc runs of each test (see the module docstring)."""
    if request.module.__name__.rsplit(".", 1)[-1] not in _UNVERIFIED:
        monkeypatch.setenv("ENZC_VERIFY", os.environ.get("ENZC_VERIFY", "1"))


@pytest.fixture(scope="session")
def drivers() -> tuple[Path, Path]:
    """enzcc and enzc++; a missing driver is a failure, not a skip (setup installs them)."""
    for d in (ENZCC, ENZCXX):
        assert d.exists(), f"{d} is missing: run `make setup`"
    return ENZCC, ENZCXX
