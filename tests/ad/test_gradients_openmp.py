"""OpenMP (`-fopenmp`, LLVM's libomp): parallel loops in functions given to
`__enzyme_autodiff` and `__enzyme_fwddiff`, each program built once by enzcc and run
with 1, 2 and 4 threads (oversubscribed on small machines, which is the point: the
reverse teams interleave). At every thread count the gradient must match central
finite differences, and the gradients of different thread counts must agree to
summation order (a race, a lost atomic update or a tape replayed by the wrong thread
changes entries by far more).

Each program is also built with `-fsanitize=thread` and run with 4 threads under
LLVM's Archer (libomp's OMPT tool that tells ThreadSanitizer about OpenMP's
barriers, locks and task order; without it the uninstrumented runtime gives false
reports). The derivatives enzcc makes carry the sanitizer mark of the program's
functions, so ThreadSanitizer sees the reverse pass's accesses to shadow memory:
any report fails the test (a reverse with plain adds where threads meet is
reported at once)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gradcheck import GradLine, Program, build, check_output, discover, params, _run

CONFIGS = ["-O2", "-O0"]
THREADS = (1, 2, 4)
PROGRAMS = discover("openmp")
RUN_TIMEOUT = 120
ARCHER = Path("/usr/lib/llvm-22/lib/libarcher.so")
TSAN_THREADS = 4
TSAN_ENV = {"OMP_TOOL_LIBRARIES": str(ARCHER), "ARCHER_OPTIONS": "verbose=0",
            "TSAN_OPTIONS": "ignore_noninstrumented_modules=1 halt_on_error=1 exitcode=66"}

SUMMATION_ORDER = 1e-12
"""Relative agreement between thread counts: the reverse adds the same terms into a
shared adjoint in another order (atomics, reductions), ~n ulps for n terms."""


def test_programs_found() -> None:
    assert len(PROGRAMS) >= 8


def _run_with_threads(prog: Program, exe: Path, threads: int, cwd: Path) -> list[GradLine]:
    env = dict(os.environ, LC_ALL="C", OMP_NUM_THREADS=str(threads), OMP_DYNAMIC="false")
    r = _run([str(exe)], cwd=cwd, timeout=RUN_TIMEOUT, env=env)
    if r.returncode != 0:
        raise AssertionError(f"{prog.name} with OMP_NUM_THREADS={threads} exited with {r.returncode}:\n"
                             + (r.stdout + r.stderr)[-3000:])
    try:
        return check_output(r.stdout, prog.tol, prog.grads)
    except AssertionError as e:
        raise AssertionError(f"OMP_NUM_THREADS={threads}: {e}") from None


@pytest.mark.parametrize(("prog", "config"), params(PROGRAMS, CONFIGS, {}))
def test_openmp_gradient(prog: Program, config: str, tmp_path: Path, drivers) -> None:
    b = build(prog, config, tmp_path)
    if b.exe is None:
        raise AssertionError(f"build failed (exit {b.returncode}): {' '.join(b.command)}\n" + b.stderr[-4000:])
    runs = {t: _run_with_threads(prog, b.exe, t, tmp_path) for t in THREADS}
    serial = runs[1]
    for t, lines in runs.items():
        for one, many in zip(serial, lines):
            scale = max(1.0, abs(one.enzyme))
            assert abs(one.enzyme - many.enzyme) <= SUMMATION_ORDER * scale, \
                f"{one.name}: {one.enzyme!r} with 1 thread, {many.enzyme!r} with {t}"


@pytest.mark.skipif(not ARCHER.exists(), reason=f"{ARCHER} (libomp's ThreadSanitizer support) is not installed")
@pytest.mark.parametrize(("prog", "config"), params(PROGRAMS, ["-O2 -fsanitize=thread"], {}))
def test_openmp_gradient_under_thread_sanitizer(prog: Program, config: str, tmp_path: Path, drivers) -> None:
    b = build(prog, config, tmp_path)
    if b.exe is None:
        raise AssertionError(f"build failed (exit {b.returncode}): {' '.join(b.command)}\n" + b.stderr[-4000:])
    env = dict(os.environ, LC_ALL="C", OMP_NUM_THREADS=str(TSAN_THREADS), OMP_DYNAMIC="false", **TSAN_ENV)
    r = _run([str(b.exe)], cwd=tmp_path, timeout=RUN_TIMEOUT, env=env)
    assert "ThreadSanitizer" not in r.stderr, r.stderr[-4000:]
    assert r.returncode == 0, f"exit {r.returncode}:\n" + (r.stdout + r.stderr)[-3000:]
    check_output(r.stdout, prog.tol, prog.grads)
