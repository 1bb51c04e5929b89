"""The fuzzers' seeds (built once per test run, or kept in ENZC_FUZZ_CACHE=DIR) and
the pre-imported enzc the forked cases start from."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from harness import warm_up  # noqa: E402
from seeds import Seeds, build_seeds  # noqa: E402


@pytest.fixture(scope="session")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> Seeds:
    cache = os.environ.get("ENZC_FUZZ_CACHE")
    base = tmp_path_factory.getbasetemp()  # under xdist, workers share its parent
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    directory = Path(cache) if cache else shared / "fuzz-seeds"
    built = build_seeds(directory)
    warm_up()
    return built
