// A callee that reloads its argument in its own reverse pass (a stable argument:
// the caller's only writes to that memory are undone stores) is called before and
// after a store into that very memory (the caller passes &x[2] as out). Each
// callee reverse must see x as the callee saw it: the second call sees the first
// store's value. Checked as a map of memory against central finite differences,
// and the memory after the gradient call against a plain call.
// tol: rel=1e-7 abs=1e-9
// grads: 12
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 6, OUT = 2 };

__attribute__((noinline)) static double cubes(const double *a, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * a[i] * a[i];
    return s;
}

void twice(double *x, int n, double *out) {
    double t = 0;
    for (int i = 0; i + 1 < n; i++) t += x[i] * x[i + 1];
    double c = cubes(x, n);
    *out = t * c;
    double d = cubes(x, n);
    *out += sin(d);
}

static const double seed[N] = {0.3, -0.2, 0.7, 0.1, 1.0, -0.4};

static void run(const double *x0, double *mem) {
    memcpy(mem, x0, N * sizeof *mem);
    twice(mem, N, mem + OUT);
}

static double weighted(const double *x0) {
    double mem[N];
    run(x0, mem);
    double f = 0;
    for (int i = 0; i < N; i++) f += seed[i] * mem[i];
    return f;
}

int main(void) {
    double x0[N], x[N], dx[N], want[N];
    for (int i = 0; i < N; i++) x0[i] = 0.1 + 0.12 * i;
    memcpy(x, x0, sizeof x);
    memcpy(dx, seed, sizeof dx);
    __enzyme_autodiff((void *)twice, enzyme_dup, x, dx, enzyme_const, N, enzyme_dup, x + OUT, dx + OUT);
    run(x0, want);
    for (int i = 0; i < N; i++) {
        double xp[N], xm[N], h = 1e-6 * fmax(1, fabs(x0[i]));
        memcpy(xp, x0, sizeof xp);
        memcpy(xm, x0, sizeof xm);
        xp[i] += h;
        xm[i] -= h;
        double fd = (weighted(xp) - weighted(xm)) / (2 * h);
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], fd);
        printf("grad x[%d] %.17g %.17g\n", i, x[i], want[i]);
    }
    return 0;
}
