"""Strong scaling of an OpenMP gradient: the 2-D Brusselator of brusselator_omp.c,
built by enzcc -O2 -fopenmp (and once without -fopenmp, the serial reference), run
at 1, 2 and 4 threads. Not a test: prints, from one run,

    threads  objective(s)  gradient(s)  gradient/objective  gradient speed-up
    serial   ...
    1        ...

The ratio must not grow with the thread count by more than 1.2x (issue 14); on a
machine with fewer cores than threads the speed-ups are meaningless, which the
output says (os.cpu_count() and the load average are printed).

Usage: .venv/bin/python -m benchmarks.parallel.omp_scaling [--n 512] [--reps 5] [--enzcc PATH]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

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
    ap.add_argument("--reps", type=int, default=5, help="repetitions (the best is kept)")
    ap.add_argument("--enzcc", type=Path, default=ENZCC, help="the compiler to measure (another build of enzc)")
    args = ap.parse_args(argv)
    print(f"Brusselator {args.n}x{args.n}, 10 Euler steps; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'threads':>8} {'objective(s)':>13} {'gradient(s)':>12} {'grad/obj':>9} {'grad speed-up':>14}")
    with tempfile.TemporaryDirectory() as tmp:
        serial = build(Path(tmp), args.n, openmp=False, enzcc=args.enzcc)
        parallel = build(Path(tmp), args.n, openmp=True, enzcc=args.enzcc)
        f, g = measure(serial, 1, args.reps)
        print(f"{'serial':>8} {f:13.3g} {g:12.3g} {g / f:9.1f} {'':>14}")
        base = None
        ratios = []
        for threads in (1, 2, 4):
            f, g = measure(parallel, threads, args.reps)
            base = base or g
            ratios.append(g / f)
            print(f"{threads:>8} {f:13.3g} {g:12.3g} {g / f:9.1f} {base / g:14.2f}")
    print(f"ratio growth 1 -> 4 threads: {ratios[-1] / ratios[0]:.2f}x (target <= 1.2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
