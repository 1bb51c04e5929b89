"""Fixtures for the IR tests: where compiled corpus IR is cached, and which round-trip
implementation the law is checked on."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# The round-trip harness is a plain module next to the tests (also run as a script by
# scripts/roundtrip_realworld.sh); make it importable however pytest imports tests.
sys.path.insert(0, str(Path(__file__).parent))

import roundtrip_harness  # noqa: E402


@pytest.fixture(scope="session")
def ir_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Directory for clang's output, one per test run. Under pytest-xdist every worker
    gets its own basetemp; their common parent is shared, so a program compiled by one
    worker is reused by the others (compile_ir writes atomically).

    ENZC_IR_CACHE=DIR keeps the compiled corpus across runs instead (file names carry
    a hash of source and command), which saves a minute per run while working on the
    parser."""
    persistent = os.environ.get("ENZC_IR_CACHE")
    if persistent:
        Path(persistent).mkdir(parents=True, exist_ok=True)
        return Path(persistent)
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    cache = root / "ir-corpus"
    cache.mkdir(exist_ok=True)
    return cache


@pytest.fixture
def roundtrip() -> roundtrip_harness.RoundTrip:
    """enzc's parse+print, in process (looked up at call time, so a plugin can swap in
    a stand-in to test the harness itself)."""
    return roundtrip_harness.enzc_in_process
