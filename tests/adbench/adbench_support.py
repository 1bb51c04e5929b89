"""Shared helpers for the ADBench tests: small inputs, builds, data location.

The programs are the harness's own (benchmarks/adbench/c), built by the
harness's own build function, so the tests check exactly what the benchmark
measures.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.adbench.harness import default_data_dir  # noqa: E402
from benchmarks.adbench.suite import Benchmark, Input, benchmark  # noqa: E402

DATA = default_data_dir()

FD_RTOL = 1e-6
"""Manual derivative vs fourth-order central differences (h = 1e-4 relative):
FD rounding error is about eps |f| / h, 1e-8 of the gradient's scale for
GMM's |f| ~ 5000; the worst seen is 1.4e-7 (LSTM, tiny entries).  A wrong
derivative term is off by far more than 1e-6."""


def data_file(relative: str) -> Path:
    """A file of the ADBench data; skips the test when the data is absent."""
    path = DATA / relative
    if not path.exists():
        pytest.skip(f"ADBench data not found at {DATA} (set ENZC_ADBENCH_DATA)")
    return path


def case(bench: str, arg: str, *options: str) -> tuple[Benchmark, Input]:
    """A benchmark with one input given by path (relative to the data) or size spec."""
    b = benchmark(bench)
    where = str(data_file(arg)) if b.data_folder else arg
    return b, Input(arg, where, 0, tuple(options))


SMALLEST = {
    # the smallest input of each benchmark: for FD checks and enzcc vs manual
    "gmm": ("gmm/test.txt",),
    "ba": ("ba/test.txt",),
    "lstm": ("lstm/lstm_l2_c1024.txt", "--truncate", "100"),
    "ode-euler": ("n=4,steps=50",),
    "ode-rk4": ("n=4,steps=50",),
    "fft": ("n=64",),
    "bruss": ("n=8,steps=20",),
    "gpt": ("v=11,t=5,c=8,l=2,h=2,b=2",),
}
