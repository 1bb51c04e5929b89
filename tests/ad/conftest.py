"""Fixtures for the end-to-end gradient tests.

Every test builds into its own pytest `tmp_path`, so tests share no files and run
safely under `pytest -n 2` (xdist). The drivers are the ones `scripts/setup.sh`
installs into .venv/bin.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gradcheck import ENZCC, ENZCXX  # noqa: E402


@pytest.fixture(scope="session")
def drivers() -> tuple[Path, Path]:
    """enzcc and enzc++; a missing driver is a failure, not a skip (setup installs them)."""
    for d in (ENZCC, ENZCXX):
        assert d.exists(), f"{d} is missing: run `make setup`"
    return ENZCC, ENZCXX
