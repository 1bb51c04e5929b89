// Forward split mode with a tape through loops whose trip counts depend on the data:
// Newton's iteration for square roots, run in place until it converges, and running
// sums of squares written over their inputs until the sum would pass a limit. The
// tape holds what every iteration read; the tangent replays the same iterations.
// Against central finite differences; the arrays must hold the primal's results
// (written once) and the count the primal wrote.
// tol: rel=1e-6 abs=1e-9
// grads: 19
#include <math.h>
#include <stdio.h>
#include <string.h>

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_fwdsplit(void *, ...);
extern int enzyme_dup, enzyme_const;

void sqrt_newton(double *a, int n) {
    for (int i = 0; i < n; i++) {
        double v = a[i], y = v > 1 ? v : 1;
        while (fabs(y * y - v) > 4e-15 * v) y = 0.5 * (y + v / y);
        a[i] = y;
    }
}

void prefix_squares(double *x, int n, double limit, int *count) {
    double s = 0;
    int i = 0;
    while (i < n && s + x[i] * x[i] < limit) {
        s += x[i] * x[i];
        x[i] = s;
        i++;
    }
    *count = i;
}

#define NA 4
#define NX 5

int main(void) {
    const double h = 1e-6;
    const double a0[NA] = {2.0, 0.3, 10.0, 1.7}, va[NA] = {1.0, -0.2, 3.0, 0.5};
    double a[NA], da[NA], once[NA], ap[NA], am[NA];
    memcpy(a, a0, sizeof a);
    memcpy(da, va, sizeof da);
    memcpy(once, a0, sizeof once);
    sqrt_newton(once, NA);
    void *tape = __enzyme_augmentfwd((void *)sqrt_newton, enzyme_dup, a, da, enzyme_const, NA);
    for (int i = 0; i < NA; i++) printf("grad a_once[%d] %.17g %.17g\n", i, a[i], once[i]);
    __enzyme_fwdsplit((void *)sqrt_newton, enzyme_dup, a, da, enzyme_const, NA, tape);
    for (int i = 0; i < NA; i++) {
        ap[i] = a0[i] + h * va[i];
        am[i] = a0[i] - h * va[i];
    }
    sqrt_newton(ap, NA);
    sqrt_newton(am, NA);
    for (int i = 0; i < NA; i++) printf("grad da[%d] %.17g %.17g\n", i, da[i], (ap[i] - am[i]) / (2 * h));

    const double x0[NX] = {0.5, -1.0, 0.8, 1.5, 0.7}, vx[NX] = {0.3, 1.0, -2.0, 0.5, 1.5};
    double x[NX], dx[NX], xonce[NX], xp[NX], xm[NX];
    int count = -1, count_once = -1, cp, cm;
    memcpy(x, x0, sizeof x);
    memcpy(dx, vx, sizeof dx);
    memcpy(xonce, x0, sizeof xonce);
    prefix_squares(xonce, NX, 3.0, &count_once);
    tape = __enzyme_augmentfwd((void *)prefix_squares, enzyme_dup, x, dx, enzyme_const, NX, 3.0,
                               enzyme_const, &count);
    for (int i = 0; i < NX; i++) printf("grad x_once[%d] %.17g %.17g\n", i, x[i], xonce[i]);
    count = -7; /* fwdsplit must not write it again */
    __enzyme_fwdsplit((void *)prefix_squares, enzyme_dup, x, dx, enzyme_const, NX, enzyme_const, 3.0,
                      enzyme_const, &count, tape);
    printf("grad count_untouched %d %d\n", count, -7);
    for (int i = 0; i < NX; i++) {
        xp[i] = x0[i] + h * vx[i];
        xm[i] = x0[i] - h * vx[i];
    }
    prefix_squares(xp, NX, 3.0, &cp);
    prefix_squares(xm, NX, 3.0, &cm);
    for (int i = 0; i < NX; i++) printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (xp[i] - xm[i]) / (2 * h));
    return 0;
}
