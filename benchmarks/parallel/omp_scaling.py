"""Strong scaling of an OpenMP gradient: the 2-D Brusselator of brusselator_omp.c,
built by enzcc -O2 -fopenmp (and once without -fopenmp, the serial reference), run
at 1, 2 and 4 threads in interleaved rounds (`rounds.py`: each round times the
serial build and every thread count once, in rotating order). Not a test: prints,
from one run, every round's gradient time and gradient/objective ratio per thread
count with the load average, then per thread count (and for the serial build) the
medians over the rounds:

    threads  objective(s)  gradient(s)  gradient/objective  gradient speed-up

The ratio must not grow with the thread count by more than 1.2x (issue 14); on a
machine with fewer cores than threads the speed-ups are meaningless, which the
output says (os.cpu_count() and the load average are printed).

Usage: .venv/bin/python -m benchmarks.parallel.omp_scaling [--n 512] [--reps 5] [--rounds 7] [--enzcc PATH]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.parallel.rounds import run_rounds, summarize

HERE = Path(__file__).resolve().parent
ENZCC = HERE.parents[1] / ".venv" / "bin" / "enzcc"
SOURCE = HERE / "brusselator_omp.c"


def build(out: Path, n: int, openmp: bool, enzcc: Path = ENZCC) -> Path:
    exe = out / ("omp" if openmp else "serial")
    cmd = [str(enzcc), "-O2", f"-DN={n}", *(["-fopenmp"] if openmp else ["-Wno-source-uses-openmp"]),
           str(SOURCE), "-lm", "-o", str(exe)]
    subprocess.run(cmd, check=True)
    return exe


def measure(exe: Path, threads: int, reps: int) -> tuple[float, float]:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_DYNAMIC="false")
    out = subprocess.run([str(exe), str(reps)], env=env, check=True, capture_output=True, text=True).stdout
    times = dict(line.split()[:2] for line in out.splitlines() if line.startswith(("objective", "gradient")))
    return float(times["objective"]), float(times["gradient"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=512, help="grid side (N x N points; 512: the objective takes ~20 ms)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions per process (the best is kept)")
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds (the median is reported)")
    ap.add_argument("--enzcc", type=Path, default=ENZCC, help="the compiler to measure (another build of enzc)")
    args = ap.parse_args(argv)
    print(f"Brusselator {args.n}x{args.n}, 10 Euler steps; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        serial = build(Path(tmp), args.n, openmp=False, enzcc=args.enzcc)
        parallel = build(Path(tmp), args.n, openmp=True, enzcc=args.enzcc)
        times = run_rounds((1, 2, 4), args.rounds, lambda t: measure(parallel, t, args.reps), "thr",
                           serial=lambda: measure(serial, 1, args.reps))
        summarize(times, "threads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
