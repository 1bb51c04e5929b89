"""Fixtures for the end-to-end gradient tests.

Every test builds into its own pytest `tmp_path`, so tests share no files and run
safely under `pytest -n 2` (xdist). The drivers are the ones `scripts/setup.sh`
installs into .venv/bin.

Every enzcc run of these tests verifies the AD stage's output with enzc.ir's verifier
(ENZC_VERIFY=1, like --enzc-verify; about 5% of a build's time), so a malformed
derivative fails with the function and instruction at fault, also where the printed
text would look right (an operand or debug record naming a value of another
function).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gradcheck import ENZCC, ENZCXX  # noqa: E402


@pytest.fixture(autouse=True)
def verify_ad_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """ENZC_VERIFY=1 for the enzcc runs of each test (see the module docstring)."""
    monkeypatch.setenv("ENZC_VERIFY", os.environ.get("ENZC_VERIFY", "1"))


@pytest.fixture(scope="session")
def drivers() -> tuple[Path, Path]:
    """enzcc and enzc++; a missing driver is a failure, not a skip (setup installs them)."""
    for d in (ENZCC, ENZCXX):
        assert d.exists(), f"{d} is missing: run `make setup`"
    return ENZCC, ENZCXX
