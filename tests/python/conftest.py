"""Fixtures for the Python API tests: one cache for the session, libraries built once.

Every test process (and xdist worker) shares one cache directory, so a library is
compiled once per run, not once per test; `load` itself must cope with the workers
building the same entry at the same time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

PROGRAMS = Path(__file__).parent / "programs"


@pytest.fixture(scope="session", autouse=True)
def enzc_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ENZC_CACHE for the whole session, shared by xdist workers."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if base.name.startswith("popen-gw") else base) / "enzc-cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ENZC_CACHE", str(root))
        yield root


@pytest.fixture(scope="session", params=["double", "float"])
def real(request: pytest.FixtureRequest) -> str:
    """The C floating type the test programs are built for."""
    return request.param


@pytest.fixture(scope="session")
def functions_f64(enzc_cache: Path):
    import enzc

    return enzc.load(files=[PROGRAMS / "functions.c"])


@pytest.fixture(scope="session")
def functions_lib(enzc_cache: Path, real: str, functions_f64):
    import enzc

    if real == "double":
        return functions_f64
    return enzc.load(files=[PROGRAMS / "functions.c"], flags=["-DREAL=float"])
