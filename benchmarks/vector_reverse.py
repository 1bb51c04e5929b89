"""Vector reverse mode: N rows of a Jacobian in one reverse pass vs N gradients, -O2.

Not a test: prints one line per width, e.g.

    width  n        objective   N x width-1     width N   N calls / one pass
    4      100000   7.8e-03 s   4.0e-02 s      1.5e-02 s   2.60

The program maps x (n values) to N outputs that share a loop over x (a sum every
output uses) and each loop over x again; the caller wants all N rows of the
Jacobian. `N x width-1` is the time of N calls of `__enzyme_autodiff`, one seed
e_k each; `width N` is one call with `enzyme_width, N` and `enzyme_dupv` (every
lane seeded at once): the primal and its tape are computed once instead of N
times. Both times are per complete Jacobian, measured in one run.

Usage: .venv/bin/python -m benchmarks.vector_reverse [--widths 2,4,8] [--size 1e5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.small_programs import build_c, build_dir, timings

PROGRAM = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
extern int enzyme_width, enzyme_dupv, enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
#define W %(width)d

void model(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += sin(x[i]) * x[i];
  for (int k = 0; k < W; k++) {
    double t = 0;
    for (int i = 0; i < n; i++) t += exp(-x[i] * x[i] * (k + 1)) * s;
    y[k] = t;
  }
}

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  double *x = malloc(n * sizeof *x), *dx = calloc((size_t)W * n, sizeof *dx), y[W], seeds[W][W] = {{0}};
  for (int i = 0; i < n; i++) x[i] = sin(i * 0.1);
  for (int k = 0; k < W; k++) seeds[k][k] = 1;
  long reps = 0; double t0 = now(), t1;
  do { model(x, y, n); reps++; } while ((t1 = now()) - t0 < 0.3);
  double objective = (t1 - t0) / reps;
  reps = 0; t0 = now();
  do {
    for (int k = 0; k < W; k++) {
      double d[W];
      memcpy(d, seeds[k], sizeof d);
      __enzyme_autodiff((void *)model, enzyme_dup, x, dx + (size_t)k * n, enzyme_dup, y, d, enzyme_const, n);
    }
    reps++;
  } while ((t1 = now()) - t0 < 0.3);
  double separate = (t1 - t0) / reps;
  reps = 0; t0 = now();
  do {
    double d[W][W];
    memcpy(d, seeds, sizeof d);
    __enzyme_autodiff((void *)model, enzyme_width, W, enzyme_dupv, sizeof(double) * n, x, dx,
                      enzyme_dupv, sizeof d[0], y, d[0], enzyme_const, n);
    reps++;
  } while ((t1 = now()) - t0 < 0.3);
  printf("%%.3g %%.3g %%.3g %%.17g\n", objective, separate, (t1 - t0) / reps, dx[0] + y[0]);
  return 0;
}
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--widths", default="2,4,8")
    ap.add_argument("--size", default="1e5")
    ap.add_argument("--keep", type=Path, help="build in this directory and keep it")
    args = ap.parse_args(argv)
    n = int(float(args.size))
    with build_dir(args.keep, "vector_reverse.") as workdir:
        print(f"{'width':<7}{'n':<9}{'objective':>10}{'N x width-1':>15}{'width N':>12}{'N calls / one pass':>20}")
        for width in (int(w) for w in args.widths.split(",")):
            exe = build_c(PROGRAM % {"width": width}, f"vector_{width}", workdir)
            obj, separate, one = timings(exe, n)[:3]
            print(f"{width:<7}{n:<9}{obj:>8.2g} s{separate:>13.2g} s{one:>10.2g} s{separate / one:>20.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
