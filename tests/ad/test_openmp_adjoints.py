"""Which adjoint additions in the reverse of an OpenMP region are atomic.

`programs/openmp/disjoint.c` (its gradient is checked against finite differences at
1, 2 and 4 threads by test_gradients_openmp.py) is compiled to IR here, and the
`atomicrmw` instructions of each region's reverse are counted: none where each
iteration owns its elements (`rows`: x[i], a[i*M + j]), one per shared coefficient
and thread where every iteration reads the same c[k] (`coef`: the private sums'
flushes), and atomic adds kept where iterations overlap (`overlap`: stencil
neighbours and a scatter through an index array; `two_loops`: two work-sharing
loops in one region). Stencil neighbours (`overlap`'s x[i-1], x[i+1];
`stress_halo.c`'s 1-D stencil, periodic rows and one array read through two
arguments) add atomically only at the ends of a thread's chunk (or when the two
arguments' regions overlap): their atomic add sits behind a `d.halo.edge` branch,
the plain add behind `d.halo.inner`. `stress_plain.c`, whose 200 repeated gradients are compared
bitwise, must have no atomic add at all. `timeloop.c`'s derivative must not cache
the state pointers of each time step."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from gradcheck import ENZCC, PROGRAMS

SOURCE = PROGRAMS / "openmp" / "disjoint.c"


def atomics_by_region(source: Path, out: Path) -> dict[str, list[str]]:
    """The `atomicrmw` lines of each `reverse_<f>.omp_outlined...` function of `source`'s
    IR, each prefixed with `edge: ` when it is in a block taken only at a chunk's ends."""
    r = subprocess.run([str(ENZCC), "-O2", "-fopenmp", "-S", "-emit-llvm", str(source), "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    found: dict[str, list[str]] = {}
    current, block = None, ""
    for line in out.read_text().splitlines():
        if line.startswith("define"):
            m = re.search(r"@reverse_(\w+)\.omp_outlined", line)
            current = m.group(1) if m else None
            if current:
                found[current] = []
        elif re.match(r"^[\w.\"]+:", line):
            block = line.split(":")[0]
        elif current and "atomicrmw" in line:
            found[current].append(("edge: " if block.startswith("d.halo.edge") else "") + line.strip())
    return found


def guarded(atomics: list[str]) -> int:
    return sum(a.startswith("edge: ") for a in atomics)


@pytest.fixture(scope="module")
def reverse_atomics(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    return atomics_by_region(SOURCE, tmp_path_factory.mktemp("omp_ir") / "disjoint.ll")


def test_owned_elements_add_plainly(reverse_atomics: dict[str, list[str]]) -> None:
    assert reverse_atomics["rows"] == []


def test_shared_coefficients_flush_once(reverse_atomics: dict[str, list[str]]) -> None:
    flushes = reverse_atomics["coef"]
    assert len(flushes) == 2 and all("d.private.sum" in a for a in flushes), flushes


def test_overlapping_iterations_stay_atomic(reverse_atomics: dict[str, list[str]]) -> None:
    assert len(reverse_atomics["overlap"]) == 3  # x[i-1], x[i+1], y[idx[i]]
    assert len(reverse_atomics["two_loops"]) >= 3  # x[i] in both loops, out[i]
    assert guarded(reverse_atomics["two_loops"]) == 0


def test_stencil_neighbours_are_atomic_only_at_chunk_ends(reverse_atomics: dict[str, list[str]]) -> None:
    overlap = reverse_atomics["overlap"]
    assert guarded(overlap) == 2, overlap  # x[i-1], x[i+1]; the scatter y[idx[i]] stays atomic
    assert guarded(reverse_atomics["rows"] + reverse_atomics["coef"]) == 0


def test_periodic_and_dynamic_stencils_are_atomic_only_at_chunk_ends(tmp_path: Path) -> None:
    found = atomics_by_region(PROGRAMS / "openmp" / "stress_halo.c", tmp_path / "stress_halo.ll")
    assert guarded(found["ring"]) == 3, found["ring"]  # rows (r-1+R)%R, r, (r+1)%R
    assert guarded(found["line"]) == 2, found["line"]  # two loads per iteration (LLVM carries one over)
    assert guarded(found["pair"]) == 3, found["pair"]  # a[i-1], a[i+1], b[i]: plain only if a, b are apart


def test_plain_stress_program_has_no_atomics(tmp_path: Path) -> None:
    found = atomics_by_region(PROGRAMS / "openmp" / "stress_plain.c", tmp_path / "stress_plain.ll")
    assert found.get("kernel") == [], found


def test_time_loop_reads_stored_state_pointers(tmp_path: Path) -> None:
    """timeloop.c: the state pointers clang reloads from their stack slots before each
    fork are the stored pointers, not per-step values to cache (10 before)."""
    r = subprocess.run([str(ENZCC), "-O2", "-fopenmp", "-c", str(PROGRAMS / "openmp" / "timeloop.c"),
                        "-o", str(tmp_path / "t.o"), "--enzc-print-cache"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    m = re.search(r"; diffe_simulate: (\d+) cached values", r.stderr)
    assert m is not None, r.stderr[-3000:]
    assert int(m.group(1)) <= 2, r.stderr[-3000:]
