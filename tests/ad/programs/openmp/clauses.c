// More of what `#pragma omp` takes, one small loss each: num_threads, if,
// collapse(2), simd, lastprivate, and master + explicit barrier + single +
// nowait in one region (the reverse replays the master's work on the master and
// keeps the barriers where they were).
// tol: rel=1e-6 abs=1e-8
// grads: 18
// flags: -fopenmp
#include <stdlib.h>
#include "fd.h"

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 40 };

__attribute__((noinline)) double with_num_threads(double *x, int n) {
    double s = 0;
#pragma omp parallel for num_threads(3) reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += x[i] * x[i] * x[(i + 1) % n];
    return s;
}

__attribute__((noinline)) double with_if(double *x, int n) {
    double s = 0;
#pragma omp parallel for if (n > 10) reduction(+ : s) schedule(static, 3)
    for (int i = 0; i < n; i++)
        s += sin(x[i]) * x[i];
    return s;
}

__attribute__((noinline)) double with_collapse(double *x, int n) {
    double s = 0;
#pragma omp parallel for collapse(2) reduction(+ : s)
    for (int i = 0; i < n / 4; i++)
        for (int j = 0; j < 4; j++)
            s += x[i * 4 + j] * x[i * 4 + (j + 1) % 4];
    return s;
}

__attribute__((noinline)) double with_simd(double *x, int n) {
    double s = 0;
#pragma omp parallel for simd reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += exp(0.5 * x[i]) * x[i];
    return s;
}

__attribute__((noinline)) double with_lastprivate(double *x, int n) {
    double last = 0;
#pragma omp parallel for lastprivate(last)
    for (int i = 0; i < n; i++)
        last = x[i] * x[i] + x[0];
    return last;
}

__attribute__((noinline)) double with_master(double *x, double *y, int n) {
    double s = 0;
#pragma omp parallel
    {
#pragma omp master
        y[0] = x[0] * x[1];
#pragma omp barrier
#pragma omp for reduction(+ : s) nowait
        for (int i = 0; i < n; i++)
            s += x[i] * y[0];
#pragma omp single
        y[1] = x[2] * 3;
    }
    return s + y[1] * y[1];
}

static double x0_(int i) { return 0.1 + 0.02 * i; }

#define CHECK(label, call)                                                          \
    do {                                                                            \
        double x[N], dx[N] = {0};                                                   \
        for (int i = 0; i < N; i++) x[i] = x0_(i);                                  \
        __enzyme_autodiff((void *)call, enzyme_dup, x, dx, enzyme_const, N);        \
        FD_CHECK(label "_", x, 1, dx[1], call(x, N));                               \
        FD_CHECK(label "_", x, N - 1, dx[N - 1], call(x, N));                       \
        FD_CHECK(label "_", x, 17, dx[17], call(x, N));                             \
    } while (0)

int main(void) {
    CHECK("threads", with_num_threads);
    CHECK("if", with_if);
    CHECK("collapse", with_collapse);
    CHECK("simd", with_simd);
    CHECK("last", with_lastprivate);
    double x[N], dx[N] = {0}, y[2] = {0}, dy[2] = {0};
    for (int i = 0; i < N; i++) x[i] = x0_(i);
    __enzyme_autodiff((void *)with_master, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, N);
    FD_CHECK("master_", x, 0, dx[0], with_master(x, y, N));
    FD_CHECK("master_", x, 1, dx[1], with_master(x, y, N));
    FD_CHECK("master_", x, 2, dx[2], with_master(x, y, N));
    return 0;
}
