/* Why enzcc's reverse matmul loop (GPT) runs its scalar fallback: a loop nest
   whose outer loop counts down, as every reverse pass's loops do. LLVM's
   vectorizer hoists the inner loop's run-time alias checks out of the outer
   loop and guards them with "the outer stride is not negative", which is
   always false here, so the vector loop never runs (docs/benchmarks.md, "Where
   time is lost"). Prints the time of the same nest counting down and up:

       clang-22 -O2 benchmarks/hoisted_checks.c -o /tmp/hc && /tmp/hc
       clang-22 -O2 -mllvm -hoist-runtime-checks=false benchmarks/hoisted_checks.c -o /tmp/hc && /tmp/hc

   (2026-11-25, shared 2-core EPYC: down 2.1x up's time; without hoisting,
   down 0.85x up's, and up itself 1.17x slower than with hoisting.) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void rows_down(double *dw, const double *w, double *da, const double *c,
                                         const double *g, long nout, long nin) {
    for (long o = nout - 1; o >= 0; o--)
        for (long i = nin - 1; i >= 0; i--) {
            da[i] += g[o] * w[o * nin + i];
            dw[o * nin + i] += g[o] * c[i];
        }
}

__attribute__((noinline)) void rows_up(double *dw, const double *w, double *da, const double *c,
                                       const double *g, long nout, long nin) {
    for (long o = 0; o < nout; o++)
        for (long i = nin - 1; i >= 0; i--) {
            da[i] += g[o] * w[o * nin + i];
            dw[o * nin + i] += g[o] * c[i];
        }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void) {
    long nout = 384, nin = 96;
    double *dw = calloc(nout * nin, 8), *w = calloc(nout * nin, 8), *da = calloc(nin, 8);
    double *c = calloc(nin, 8), *g = calloc(nout, 8);
    void (*volatile down)(double *, const double *, double *, const double *, const double *, long, long) = rows_down;
    void (*volatile up)(double *, const double *, double *, const double *, const double *, long, long) = rows_up;
    double t0 = now();
    for (int r = 0; r < 2000; r++)
        down(dw, w, da, c, g, nout, nin);
    double t1 = now();
    for (int r = 0; r < 2000; r++)
        up(dw, w, da, c, g, nout, nin);
    double t2 = now();
    printf("outer loop down %.3f s, up %.3f s: down/up %.2f\n", t1 - t0, t2 - t1, (t1 - t0) / (t2 - t1));
    free(dw), free(w), free(da), free(c), free(g);
    return 0;
}
