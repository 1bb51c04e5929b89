"""MPI (Open MPI): programs whose differentiated functions send, receive, broadcast
and reduce, built by enzcc two ways (as `OMPI_CC=enzcc mpicc`, and directly with
the include path and `-lmpi`) and run with `mpirun -np 1, 2, 4 --oversubscribe`.
Rank 0 prints each gradient entry next to a central finite difference of the sum
of all ranks' results (`programs/mpi/mpi_fd.h`); the gradients of different rank
counts must agree to summation order (the 1-rank run is the program's serial
version), except for a program declaring `ranks-agree: no` (its problem changes
with the number of ranks). Unsupported MPI calls on differentiable data must be
located compile-time errors.

Skipped, with the reason, only when Open MPI's `mpicc`/`mpirun` are missing
(`make setup` installs them)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from gradcheck import ENZCC, PROGRAMS, GradLine, Program, check_output, discover, params, parse_header, _run

pytestmark = pytest.mark.skipif(shutil.which("mpirun") is None or shutil.which("mpicc") is None,
                                reason="Open MPI's mpicc/mpirun are not installed (make setup installs them)")

CONFIGS = ["mpicc -O2", "enzcc -O0"]
RANKS = (1, 2, 4)
PROGRAMS_MPI = discover("mpi")
RUN_TIMEOUT = 120
SUMMATION_ORDER = 1e-12
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMPI_MCA_rmaps_base_oversubscribe": "1"}
"""Open MPI refuses root without the first two (CI containers run as root)."""


def _mpicc_flags(kind: str) -> list[str]:
    out = subprocess.run(["mpicc", f"-showme:{kind}"], capture_output=True, text=True, check=True).stdout
    return out.split()


def build(prog: Program, config: str, outdir: Path) -> Path:
    """`OMPI_CC=enzcc mpicc <opt>` or `enzcc <opt> -I... -lmpi`."""
    driver, opt = config.split()
    exe = outdir / "prog"
    env = None
    if driver == "mpicc":
        cmd = ["mpicc", opt, str(prog.path), "-lm", "-o", str(exe)]
        env = dict(os.environ, OMPI_CC=str(ENZCC))
    else:
        cmd = [str(ENZCC), opt, *_mpicc_flags("compile"), str(prog.path), "-lm", *_mpicc_flags("link"),
               "-o", str(exe)]
    r = _run(cmd, env=env)
    if r.returncode != 0 or not exe.exists():
        raise AssertionError(f"build failed (exit {r.returncode}): {' '.join(cmd)}\n" + r.stderr[-4000:])
    return exe


def run_ranks(prog: Program, exe: Path, ranks: int, cwd: Path) -> list[GradLine]:
    env = dict(os.environ, LC_ALL="C", **MPI_ENV)
    r = _run(["mpirun", "-np", str(ranks), "--oversubscribe", str(exe)], cwd=cwd, timeout=RUN_TIMEOUT, env=env)
    if r.returncode != 0:
        raise AssertionError(f"{prog.name} with -np {ranks} exited with {r.returncode}:\n"
                             + (r.stdout + r.stderr)[-3000:])
    try:
        return check_output(r.stdout, prog.tol, prog.grads)
    except AssertionError as e:
        raise AssertionError(f"-np {ranks}: {e}") from None


def test_programs_found() -> None:
    assert len(PROGRAMS_MPI) >= 5


@pytest.mark.parametrize(("prog", "config"), params(PROGRAMS_MPI, CONFIGS, {}))
def test_mpi_gradient(prog: Program, config: str, tmp_path: Path, drivers) -> None:
    exe = build(prog, config, tmp_path)
    runs = {n: run_ranks(prog, exe, n, tmp_path) for n in RANKS}
    if parse_header(prog.path).get("ranks-agree", "").startswith("no"):
        return
    for n, lines in runs.items():
        for one, many in zip(runs[1], lines):
            assert abs(one.enzyme - many.enzyme) <= SUMMATION_ORDER * max(1.0, abs(one.enzyme)), \
                f"{one.name}: {one.enzyme!r} with 1 rank, {many.enzyme!r} with {n}"


DIAG = PROGRAMS / "mpi_diag"
DIAG_CASES = {
    "sendrecv": ("MPI_Sendrecv", "differentiable data"),
    "reduce_max": ("MPI_Reduce", "MPI_SUM", "ompi_mpi_op_max"),
}


@pytest.mark.parametrize("name", sorted(DIAG_CASES))
def test_mpi_unsupported_is_located_error(name: str, tmp_path: Path, drivers) -> None:
    source = DIAG / f"{name}.c"
    line = next(n for n, t in enumerate(source.read_text().splitlines(), 1) if "DIAG-LINE" in t)
    exe = tmp_path / "prog"
    cmd = [str(ENZCC), "-O2", "-g", *_mpicc_flags("compile"), str(source), *_mpicc_flags("link"), "-o", str(exe)]
    r = _run(cmd)
    assert r.returncode == 1, r.stderr
    assert not exe.exists()
    assert "Traceback" not in r.stderr
    assert f"{source.name}:{line}:" in r.stderr, r.stderr
    for word in DIAG_CASES[name]:
        assert word.lower() in r.stderr.lower(), r.stderr
