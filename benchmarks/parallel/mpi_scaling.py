"""Strong scaling of an MPI gradient: the 1-D heat equation of heat_mpi.c (halo
exchange with MPI_Send/MPI_Recv, an Allreduce loss), built with
`OMPI_CC=enzcc mpicc -O2` and run with `mpirun -np 1, 2, 4 --oversubscribe`. Not a
test: prints, from one run, objective and gradient times, their ratio and the
gradient's speed-up, with the core count and load average (with more ranks than
cores the speed-ups are meaningless).

Usage: .venv/bin/python -m benchmarks.parallel.mpi_scaling [--cells 262144] [--reps 5]
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
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cells", type=int, default=1 << 18, help="global grid size (divisible by 4)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions (the best is kept)")
    args = ap.parse_args(argv)
    print(f"heat equation, {args.cells} cells, 20 steps; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'ranks':>6} {'objective(s)':>13} {'gradient(s)':>12} {'grad/obj':>9} {'grad speed-up':>14}")
    env = dict(os.environ, OMPI_CC=str(ENZCC), **MPI_ENV)
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "heat"
        subprocess.run(["mpicc", "-O2", f"-DN={args.cells}", str(HERE / "heat_mpi.c"), "-o", str(exe)],
                       env=env, check=True)
        base = None
        for ranks in (1, 2, 4):
            out = subprocess.run(["mpirun", "-np", str(ranks), "--oversubscribe", str(exe), str(args.reps)],
                                 env=env, check=True, capture_output=True, text=True).stdout
            times = dict(line.split()[:2] for line in out.splitlines() if line.startswith(("objective", "gradient")))
            f, g = float(times["objective"]), float(times["gradient"])
            base = base or g
            ratios.append(g / f)
            print(f"{ranks:>6} {f:13.3g} {g:12.3g} {g / f:9.1f} {base / g:14.2f}")
    print(f"ratio growth 1 -> 4 ranks: {ratios[-1] / ratios[0]:.2f}x (target <= 1.2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
