"""The paper's norm/mag example: gradient time / objective time at growing n, -O2.

Not a test: prints one line per variant and size, e.g.

    variant      n        objective      gradient   ratio   growth
    noinline     1000     1.1e-06 s      4.0e-06 s   3.6
    noinline     10000    1.1e-05 s      4.1e-05 s   3.7     10.2

`norm(out, in, n)` divides each `in[i]` by `mag(in, n)` inside its loop. Optimizing
before AD lets LICM hoist the loop-invariant `mag` call out of the loop (it only
reads `in`, `out` is `restrict`, and `pure` tells LLVM 22 it returns, which it
does not infer for a function with a loop), so the objective and its gradient
are both O(n); differentiating first would keep n calls of an O(n) function,
O(n^2). `growth` is the gradient time's factor per 10x n: near 10 means linear.
Variants: `noinline` (mag stays a call, hoisted; the gradient goes through its
augmented forward and reverse functions) and, with `--variants noinline,pure`,
`pure` (mag may be inlined: then its loop is not hoisted and objective and
gradient are both O(n^2), ratio still constant; slow at n = 1e5).

Usage: .venv/bin/python -m benchmarks.norm_mag [--sizes 1e3,1e4,1e5] [--variants noinline] [--keep DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.small_programs import build_c, build_dir, timings

VARIANTS = {"pure": "__attribute__((pure))", "noinline": "__attribute__((noinline, pure))"}

PROGRAM = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

%(attr)s double mag(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

void norm(double *restrict out, const double *restrict in, int n) {
  for (int i = 0; i < n; i++) out[i] = in[i] / mag(in, n);
}

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  double *in = malloc(n * sizeof *in), *din = calloc(n, sizeof *din);
  double *out = malloc(n * sizeof *out), *dout = malloc(n * sizeof *dout);
  for (int i = 0; i < n; i++) in[i] = 0.5 + 0.25 * sin((double)i);
  long reps = 0; double t0 = now(), t1;
  do { norm(out, in, n); reps++; } while ((t1 = now()) - t0 < 0.2);
  double objective = (t1 - t0) / reps;
  reps = 0; t0 = now();
  do {
    for (int i = 0; i < n; i++) dout[i] = 1.0;
    __enzyme_autodiff((void *)norm, enzyme_dup, out, dout, enzyme_dup, in, din, enzyme_const, n);
    reps++;
  } while ((t1 = now()) - t0 < 0.2);
  printf("%%.3g %%.3g %%.17g\n", objective, (t1 - t0) / reps, din[0] + out[n - 1]);
  return 0;
}
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e3,1e4,1e5")
    ap.add_argument("--variants", default="noinline")
    ap.add_argument("--keep", type=Path, help="build in this directory and keep it")
    args = ap.parse_args(argv)
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    with build_dir(args.keep, "norm_mag.") as workdir:
        print(f"{'variant':<10}{'n':>8}{'objective':>14}{'gradient':>14}{'ratio':>8}{'growth':>8}")
        for variant in args.variants.split(","):
            exe = build_c(PROGRAM % {"attr": VARIANTS[variant]}, f"norm_{variant}", workdir)
            previous: tuple[int, float] | None = None
            for n in sizes:
                obj, grad = timings(exe, n)[:2]
                growth = ""
                if previous is not None:
                    growth = f"{(grad / previous[1]) * 10 / (n / previous[0]):>8.1f}"
                print(f"{variant:<10}{n:>8}{obj:>12.3g} s{grad:>12.3g} s{grad / obj:>8.2f}{growth}")
                previous = (n, grad)
    return 0


if __name__ == "__main__":
    sys.exit(main())
