"""Gradient time / objective time of loop kernels, built with enzcc -O2.

Not a test: prints one line per kernel and size, e.g.

    kernel      n          objective      gradient   ratio
    sumsq       1000       1.2e-06 s      3.1e-06 s  2.6

Usage: .venv/bin/python -m benchmarks.ad_loops [--sizes 1e3,1e5,1e7] [--keep DIR]

Each kernel is a C function of an array `a` of length n (plus scalars); the
generated program times the objective and `__enzyme_autodiff` of it in C
(clock_gettime, repeated until 0.2 s have passed) and prints both times.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.small_programs import build_c, build_dir, timings

KERNELS: dict[str, tuple[str, str]] = {
    # name: (C definition of `double kernel(double *a, long n, double x)`, the autodiff call)
    "sumsq": (
        "double kernel(double *a, long n, double x) {\n"
        "  double s = 0; for (long i = 0; i < n; i++) s += a[i] * a[i] * x; return s; }",
        "__enzyme_autodiff((void*)kernel, enzyme_dup, a, da, enzyme_const, n, enzyme_out, x)"),
    "recurrence": (
        "double kernel(double *a, long n, double x) {\n"
        "  for (long i = 0; i < n; i++) x = sin(x) * 0.5 + a[i] * x; return x; }",
        "__enzyme_autodiff((void*)kernel, enzyme_dup, a, da, enzyme_const, n, enzyme_out, x)"),
    "horner_break": (
        "double kernel(double *a, long n, double x) {\n"
        "  double p = 0; for (long i = 0; i < n; i++) { p = p * x + a[i]; if (p > 1e300) break; } return p; }",
        "__enzyme_autodiff((void*)kernel, enzyme_dup, a, da, enzyme_const, n, enzyme_out, x)"),
    "nested": (
        "double kernel(double *a, long n, double x) {\n"
        "  long m = 1; while (m * m < n) m++;\n"
        "  double s = 0; for (long i = 0; i < m; i++) { double r = 0;\n"
        "    for (long j = 0; j < m && i * m + j < n; j++) r += a[i * m + j] * x;\n"
        "    s += r * r; } return s; }",
        "__enzyme_autodiff((void*)kernel, enzyme_dup, a, da, enzyme_const, n, enzyme_out, x)"),
}

PROGRAM = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
%(kernel)s
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
volatile double sink;
int main(int argc, char **argv) {
  long n = atol(argv[1]);
  double *a = malloc(n * sizeof *a), *da = calloc(n, sizeof *da), x = 0.7;
  for (long i = 0; i < n; i++) a[i] = 0.5 + 0.25 * sin((double)i);
  long reps = 0; double t0 = now(), t1;
  do { sink = kernel(a, n, x); reps++; } while ((t1 = now()) - t0 < 0.2);
  double objective = (t1 - t0) / reps;
  reps = 0; t0 = now();
  do { sink = %(call)s; reps++; } while ((t1 = now()) - t0 < 0.2);
  printf("%%.3g %%.3g\n", objective, (t1 - t0) / reps);
  return 0;
}
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e3,1e5,1e7")
    ap.add_argument("--keep", type=Path, help="build in this directory and keep it")
    args = ap.parse_args(argv)
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    with build_dir(args.keep, "ad_loops.") as workdir:
        print(f"{'kernel':<14}{'n':>10}{'objective':>14}{'gradient':>14}{'ratio':>8}")
        for name, (kernel, call) in KERNELS.items():
            exe = build_c(PROGRAM % {"kernel": kernel, "call": call}, name, workdir)
            for n in sizes:
                obj, grad = timings(exe, n)[:2]
                print(f"{name:<14}{n:>10}{obj:>12.3g} s{grad:>12.3g} s{grad / obj:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
