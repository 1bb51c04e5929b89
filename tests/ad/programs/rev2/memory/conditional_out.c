// A final store that runs on some paths only, into the input array itself, after
// an earlier store to the same address: the reverse pass undoes the stores that ran
// (newest first) and replays them in forward order at its end, guarded by whether
// they ran. Checked as a map of memory against central finite differences, for
// inputs taking either branch, and the memory after the gradient call against a
// plain call.
// tol: rel=1e-7 abs=1e-9
// grads: 24
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 6, OUT = 4 };

void clip_sum(double *x, int n, double *out, double limit) {
    *out = 0.5 * x[1];
    double s = 0;
    for (int i = 0; i < n; i++) s += sin(x[i]) * x[(i + 1) % n];
    if (s < limit) *out = s * s;
}

static const double seed[N] = {0.3, -0.2, 0.7, 0.1, 1.0, -0.4};

static void run(const double *x0, double *mem, double limit) {
    memcpy(mem, x0, N * sizeof *mem);
    clip_sum(mem, N, mem + OUT, limit);
}

static double weighted(const double *x0, double limit) {
    double mem[N];
    run(x0, mem, limit);
    double f = 0;
    for (int i = 0; i < N; i++) f += seed[i] * mem[i];
    return f;
}

static void check(const char *tag, const double *x0, double limit) {
    double x[N], dx[N], want[N];
    memcpy(x, x0, sizeof x);
    memcpy(dx, seed, sizeof dx);
    __enzyme_autodiff((void *)clip_sum, enzyme_dup, x, dx, enzyme_const, N, enzyme_dup, x + OUT, dx + OUT,
                      enzyme_const, limit);
    run(x0, want, limit);
    for (int i = 0; i < N; i++) {
        double xp[N], xm[N], h = 1e-6 * fmax(1, fabs(x0[i]));
        memcpy(xp, x0, sizeof xp);
        memcpy(xm, x0, sizeof xm);
        xp[i] += h;
        xm[i] -= h;
        double fd = (weighted(xp, limit) - weighted(xm, limit)) / (2 * h);
        printf("grad %s.dx[%d] %.17g %.17g\n", tag, i, dx[i], fd);
        printf("grad %s.x[%d] %.17g %.17g\n", tag, i, x[i], want[i]);
    }
}

int main(void) {
    double x0[N];
    for (int i = 0; i < N; i++) x0[i] = 0.2 + 0.35 * i;
    check("taken", x0, 100.0);
    check("skipped", x0, -100.0);
    return 0;
}
