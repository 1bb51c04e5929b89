"""Fixtures: the benchmark programs built once per session with the manual
derivative (clang-22 -O2), and on demand with enzcc."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import adbench_support  # noqa: E402,F401  (puts the repository on sys.path)
from benchmarks.adbench.suite import PROGRAMS  # noqa: E402
from benchmarks.adbench.tools import Tool, build, standard_tools  # noqa: E402


def _tool(name: str) -> Tool:
    return next(t for t in standard_tools() if t.name == name)


@pytest.fixture(scope="session")
def manual_exes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """program name -> executable with the hand-written derivative."""
    out = tmp_path_factory.mktemp("adbench-manual")
    with ThreadPoolExecutor(max_workers=2) as pool:
        builds = list(pool.map(lambda p: build(_tool("manual"), p, out), PROGRAMS.values()))
    failed = [f"{b.program.name}: {b.error}" for b in builds if not b.exe]
    assert not failed, "clang-22 could not build the benchmarks:\n" + "\n".join(failed)
    return {b.program.name: b.exe for b in builds if b.exe}


@pytest.fixture(scope="session")
def ad_build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("adbench-ad")


@pytest.fixture(scope="session")
def tool_by_name():
    return _tool
