"""Enzyme's OpenMP integration tests, built by enzcc: a pass/fail table.

Not part of `make test`: Enzyme's source is not in this repository (and its tests
are not copied into it). Give the path of an Enzyme source tree; every
`test/Integration/ReverseMode/omp*.c` there is built in place (they include
`../test_utils.h`) the way its lit RUN lines build it with clang and the Enzyme
plugin, `-fopenmp -std=c11 -fno-vectorize -fno-unroll-loops` at each optimisation
level its RUN lines use (`%O0TBAA` is -O0), here with enzcc as the compiler, then
run with OMP_NUM_THREADS = 1, 2 and 4. As in lit, a test passes when it exits 0:
the programs check their gradients themselves (`APPROX_EQ`, `assert`) and abort on
a wrong one.

Usage: .venv/bin/python -m benchmarks.parallel.enzyme_omp /work/enzyme-src/enzyme
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ENZCC = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "enzcc"
THREADS = (1, 2, 4)
FLAGS = ["-fopenmp", "-std=c11", "-fno-vectorize", "-fno-unroll-loops", "-lm"]
RUN_TIMEOUT = 120
BUILD_TIMEOUT = 600


def levels(source: Path) -> list[str]:
    """The optimisation levels of the file's RUN lines, in order, without repeats."""
    found: list[str] = []
    for line in source.read_text().splitlines():
        if not line.startswith("// RUN:"):
            continue
        m = re.search(r"%O0TBAA|-O[0-3]\b", line)
        level = "-O0" if m is None or m.group(0) == "%O0TBAA" else m.group(0)
        if level not in found:
            found.append(level)
    return found


def check(source: Path, level: str, out: Path) -> list[str]:
    """'pass', 'FAIL' or 'build' for each thread count."""
    exe = out / f"{source.stem}{level}"
    b = subprocess.run([str(ENZCC), level, *FLAGS, str(source), "-o", str(exe)],
                       capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    if b.returncode != 0:
        sys.stderr.write(f"{source.name} {level}: build failed\n{b.stderr[-2000:]}\n")
        return ["build"] * len(THREADS)
    results = []
    for t in THREADS:
        env = dict(os.environ, OMP_NUM_THREADS=str(t), OMP_DYNAMIC="false")
        try:
            r = subprocess.run([str(exe)], env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
            ok = r.returncode == 0
            if not ok:
                sys.stderr.write(f"{source.name} {level} {t} threads: exit {r.returncode}\n{r.stderr[-1000:]}\n")
        except subprocess.TimeoutExpired:
            ok = False
            sys.stderr.write(f"{source.name} {level} {t} threads: timed out\n")
        results.append("pass" if ok else "FAIL")
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("enzyme", type=Path, help="Enzyme source tree (holding enzyme/test or test)")
    args = ap.parse_args(argv)
    roots = [args.enzyme / "enzyme" / "test", args.enzyme / "test"]
    folder = next((r / "Integration" / "ReverseMode" for r in roots if (r / "Integration" / "ReverseMode").is_dir()),
                  None)
    if folder is None:
        print(f"error: no test/Integration/ReverseMode under {args.enzyme}", file=sys.stderr)
        return 2
    sources = sorted(folder.glob("omp*.c"))
    if not sources:
        print(f"error: no omp*.c in {folder}", file=sys.stderr)
        return 2
    print(f"{'test':<20} {'level':<6} " + " ".join(f"{t} thr" for t in THREADS))
    failed = passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for source in sources:
            for level in levels(source):
                row = check(source, level, Path(tmp))
                failed += sum(r != "pass" for r in row)
                passed += sum(r == "pass" for r in row)
                print(f"{source.name:<20} {level:<6} " + " ".join(f"{r:>5}" for r in row), flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
