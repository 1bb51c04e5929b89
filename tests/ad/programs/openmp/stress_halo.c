// Race stress for stencil neighbours added plainly inside a thread's chunk: the
// reverse adds the adjoints of x[i-1], x[i+1] (a 1-D stencil)
// and of the periodic rows u[((r-1+R)%R)*C + c], u[((r+1)%R)*C + c] (a 2-D stencil,
// both schedule(dynamic, 5)) plainly in the iterations at least two away from their
// chunk's ends and atomically in the others (analysis/omp_disjoint.py, Halo); `pair`
// reads one array through two arguments, plainly only when their regions are apart
// at run time (called once apart, once overlapping).
// Small chunks put hundreds of chunk boundaries under concurrent reverse passes: a
// build that added plainly at the ends too loses updates at once. The gradient is
// computed 200 times at the run's thread count and compared bit for bit with the
// first (exit 1 on a difference); the data are small dyadic rationals, so every
// partial sum is exact and only a lost or doubled update changes the bits.
// tol: rel=1e-6 abs=1e-8
// grads: 9
// flags: -fopenmp
#include <stdlib.h>
#include <string.h>
#include "fd.h"

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 20000, R = 100, C = 16, P = 4000, REPEATS = 200 };

__attribute__((noinline)) double line(const double *x, const double *k, int n) {
    double s = 0;
#pragma omp parallel for schedule(dynamic, 5) reduction(+ : s)
    for (int i = 1; i < n - 1; i++) {
        double v = k[0] * x[i - 1] + k[1] * x[i] + k[2] * x[i + 1];
        s += v * v;
    }
    return s;
}

__attribute__((noinline)) double ring(const double *u) {
    double s = 0;
#pragma omp parallel for schedule(dynamic, 5) reduction(+ : s)
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            double v = u[((r + R - 1) % R) * C + c] - 2 * u[r * C + c] + u[((r + 1) % R) * C + c];
            s += v * v;
        }
    return s;
}

/* Two arguments into one array: plain adds inside a chunk only when, at run time,
 * what the loop reads through a does not overlap what it reads through b. */
__attribute__((noinline)) double pair(const double *a, const double *b) {
    double s = 0;
#pragma omp parallel for schedule(dynamic, 8) reduction(+ : s)
    for (int i = 1; i < P - 1; i++)
        s += (a[i - 1] + a[i + 1]) * b[i];
    return s;
}

__attribute__((noinline)) double loss(const double *x, const double *k, const double *u, const double *w, int n) {
    /* w + P: apart (halo adds); w + 8: b[i] is a[i+8], which iterations i + 7 and
     * i + 9 (the next chunk) read too: every add atomic */
    double s = line(x, k, n) + ring(u) + pair(w, w + P);
    for (int r = 0; r < 4; r++)
        s += pair(w, w + 8);
    return s;
}

static void run(const double *x, const double *k, const double *u, const double *w, double *dx, double *dk, double *du,
                double *dw) {
    memset(dx, 0, N * sizeof *dx);
    memset(dk, 0, 3 * sizeof *dk);
    memset(du, 0, R * C * sizeof *du);
    memset(dw, 0, 2 * P * sizeof *dw);
    __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_dup, k, dk, enzyme_dup, u, du, enzyme_dup, w, dw,
                      enzyme_const, N);
}

int main(void) {
    double *x = malloc(N * sizeof *x), *dx = malloc(N * sizeof *dx), *first = malloc(N * sizeof *first);
    double *u = malloc(R * C * sizeof *u), *du = malloc(R * C * sizeof *du), *first_u = malloc(R * C * sizeof *u);
    double *w = malloc(2 * P * sizeof *w), *dw = malloc(2 * P * sizeof *dw), *first_w = malloc(2 * P * sizeof *w);
    double k[3] = {0.25, -0.5, 0.75}, dk[3], first_k[3];
    for (int i = 0; i < N; i++)
        x[i] = (double)((i * 7) % 13 - 6) / 8; /* -0.75 .. 0.75 in steps of 1/8 */
    for (int i = 0; i < R * C; i++)
        u[i] = (double)((i * 5) % 11 - 5) / 8;
    for (int i = 0; i < 2 * P; i++)
        w[i] = (double)((i * 3) % 7 - 3) / 8;
    run(x, k, u, w, dx, dk, du, dw);
    memcpy(first, dx, N * sizeof *dx);
    memcpy(first_k, dk, sizeof dk);
    memcpy(first_u, du, R * C * sizeof *du);
    memcpy(first_w, dw, 2 * P * sizeof *dw);
    for (int r = 1; r < REPEATS; r++) {
        run(x, k, u, w, dx, dk, du, dw);
        if (memcmp(first, dx, N * sizeof *dx) != 0 || memcmp(first_k, dk, sizeof dk) != 0
            || memcmp(first_u, du, R * C * sizeof *du) != 0 || memcmp(first_w, dw, 2 * P * sizeof *dw) != 0) {
            fprintf(stderr, "repetition %d: the gradient differs bitwise from the first\n", r);
            return 1;
        }
    }
    FD_CHECK("x", x, 0, first[0], loss(x, k, u, w, N));
    FD_CHECK("x", x, 6, first[6], loss(x, k, u, w, N));
    FD_CHECK("x", x, N / 2, first[N / 2], loss(x, k, u, w, N));
    FD_CHECK("k", k, 2, first_k[2], loss(x, k, u, w, N));
    FD_CHECK("u", u, 0, first_u[0], loss(x, k, u, w, N));
    FD_CHECK("u", u, 3 * C + 5, first_u[3 * C + 5], loss(x, k, u, w, N));
    FD_CHECK("w", w, 10, first_w[10], loss(x, k, u, w, N));
    FD_CHECK("w", w, P + 10, first_w[P + 10], loss(x, k, u, w, N));
    FD_CHECK("u", u, R * C - 1, first_u[R * C - 1], loss(x, k, u, w, N));
    return 0;
}
