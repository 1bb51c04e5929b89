"""Fixtures for the Python API tests: one cache for the session, libraries built once.

Every test process (and xdist worker) shares one cache directory, so a library is
compiled once per run, not once per test; `load` itself must cope with the workers
building the same entry at the same time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

PROGRAMS = Path(__file__).parent / "programs"


@pytest.fixture(scope="session")
def cache_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache directory for the whole run, shared by xdist workers."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if base.name.startswith("popen-gw") else base) / "enzc-cache"


@pytest.fixture(scope="session")
def enzc_cache(cache_root: Path) -> Path:
    """The cache directory (tests see it as ENZC_CACHE through `_cache_env`)."""
    return cache_root


def load_cached(cache: Path, *args: Any, **kwargs: Any) -> Any:
    """enzc.load with ENZC_CACHE set only for the call (for session fixtures, which
    run outside any one test's environment)."""
    import enzc

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ENZC_CACHE", str(cache))
        return enzc.load(*args, **kwargs)


@pytest.fixture(autouse=True)
def _cache_env(cache_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ENZC_CACHE for each test here; set per test so that it never leaks into the
    other test directories' enzcc runs (where it would switch the AD cache on)."""
    monkeypatch.setenv("ENZC_CACHE", str(cache_root))


@pytest.fixture(scope="session", params=["double", "float"])
def real(request: pytest.FixtureRequest) -> str:
    """The C floating type the test programs are built for."""
    return request.param


@pytest.fixture(scope="session")
def functions_f64(enzc_cache: Path) -> Any:
    return load_cached(enzc_cache, files=[PROGRAMS / "functions.c"])


@pytest.fixture(scope="session")
def functions_lib(enzc_cache: Path, real: str, functions_f64: Any) -> Any:
    if real == "double":
        return functions_f64
    return load_cached(enzc_cache, files=[PROGRAMS / "functions.c"], flags=["-DREAL=float"])
