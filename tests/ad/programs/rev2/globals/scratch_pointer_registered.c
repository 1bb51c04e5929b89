// A scratch buffer kept between calls in a global pointer and grown on demand (free,
// then malloc, inside the differentiated code), with a registered shadow pointer
// (`__enzyme_shadow_global_work`): the shadow allocation made beside each primal one
// is stored into `d_work`, and the grown buffer's shadow replaces the old one, which
// is freed with it. Differentiated first at n = 4, then at n = 6 (the buffer grows
// inside the derivative), in reverse and forward mode; the finite-difference calls
// run the primal, which finds the buffer big enough. Without the registration the
// error names the global: diag/scratch_pointer_global.c.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 20
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double *work;
static int work_n;
static double *d_work;
void *__enzyme_shadow_global_work[2] = {(void *)&work, (void *)&d_work};

static void ensure(int n) {
    if (work_n < n) {
        free(work);
        work = malloc(n * sizeof(double));
        work_n = n;
    }
}

double f(const double *x, int n) {
    ensure(n);
    for (int i = 0; i < n; i++) work[i] = sin(x[i]) * x[i];
    double s = 0;
    for (int i = 0; i < n; i++) s += work[i] * work[(i + 1) % n];
    return s;
}

static void check(const double *x, int n, const char *tag) {
    double dx[6] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
    const double h = 1e-6;
    for (int i = 0; i < n; i++) {
        double a[6], b[6], t[6] = {0};
        memcpy(a, x, sizeof a);
        memcpy(b, x, sizeof b);
        a[i] += h;
        b[i] -= h;
        t[i] = 1;
        double fd = (f(a, n) - f(b, n)) / (2 * h);
        printf("grad %s_x%d %.17g %.17g\n", tag, i, dx[i], fd);
        printf("grad %s_fwd_x%d %.17g %.17g\n", tag, i,
               __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, n), fd);
    }
}

int main(void) {
    double x[6] = {0.3, 1.1, -0.7, 2.0, -1.3, 0.45};
    check(x, 4, "n4");
    check(x, 6, "n6");
    return 0;
}
