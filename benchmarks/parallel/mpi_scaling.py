"""Strong scaling of an MPI gradient: the 1-D heat equation of heat_mpi.c (halo
exchange with MPI_Send/MPI_Recv, an Allreduce loss), built with
`OMPI_CC=enzcc mpicc -O2` and run with `mpirun -np 1, 2, 4 --oversubscribe` in
interleaved rounds (`rounds.py`). Not a test: prints, from one run, every round's
gradient time and gradient/objective ratio per rank count with the load average,
then the medians over the rounds: objective and gradient times, their ratio and
the gradient's speed-up, with the core count (with more ranks than cores the
speed-ups are meaningless).

Usage: .venv/bin/python -m benchmarks.parallel.mpi_scaling [--cells 262144] [--reps 5] [--rounds 5]
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
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cells", type=int, default=1 << 18, help="global grid size (divisible by 4)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions per process (the best is kept)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (the median is reported)")
    args = ap.parse_args(argv)
    print(f"heat equation, {args.cells} cells, 20 steps; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    env = dict(os.environ, OMPI_CC=str(ENZCC), **MPI_ENV)
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "heat"
        subprocess.run(["mpicc", "-O2", f"-DN={args.cells}", str(HERE / "heat_mpi.c"), "-o", str(exe)],
                       env=env, check=True)

        def measure(ranks: int) -> tuple[float, float]:
            out = subprocess.run(["mpirun", "-np", str(ranks), "--oversubscribe", str(exe), str(args.reps)],
                                 env=env, check=True, capture_output=True, text=True).stdout
            times = dict(line.split()[:2] for line in out.splitlines() if line.startswith(("objective", "gradient")))
            return float(times["objective"]), float(times["gradient"])

        summarize(run_rounds((1, 2, 4), args.rounds, measure, "rk"), "ranks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
