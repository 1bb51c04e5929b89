// Forward split mode with a tape: __enzyme_augmentfwd runs an in-place update once
// (x[i] = x[i] sin(x[i]) + 0.5), __enzyme_fwdsplit returns its tangent from the tape
// without running it again. The caller overwrites x between the two calls, so a
// tangent computed from memory instead of the tape would be wrong. Against central
// finite differences; x must hold the update applied exactly once, and fwdsplit must
// leave x alone.
// tol: rel=1e-6 abs=1e-9
// grads: 12
#include <math.h>
#include <stdio.h>
#include <string.h>

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_fwdsplit(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 4

void update(double *x, int n) {
    for (int i = 0; i < n; i++) x[i] = x[i] * sin(x[i]) + 0.5;
}

int main(void) {
    const double x0[N] = {0.3, -1.2, 2.5, 0.9};
    const double v[N] = {1.0, -0.5, 0.25, 2.0}; /* the tangent direction */
    double x[N], dx[N], once[N], after[N], xp[N], xm[N];
    memcpy(x, x0, sizeof x);
    memcpy(dx, v, sizeof dx);
    memcpy(once, x0, sizeof once);
    update(once, N);
    void *tape = __enzyme_augmentfwd((void *)update, enzyme_dup, x, dx, enzyme_const, N);
    memcpy(after, x, sizeof after);
    for (int i = 0; i < N; i++) x[i] = 100.0 + i; /* the caller reuses x: the tape kept what update read */
    __enzyme_fwdsplit((void *)update, enzyme_dup, x, dx, enzyme_const, N, tape);
    const double h = 1e-6;
    for (int i = 0; i < N; i++) {
        xp[i] = x0[i] + h * v[i];
        xm[i] = x0[i] - h * v[i];
    }
    update(xp, N);
    update(xm, N);
    for (int i = 0; i < N; i++) {
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (xp[i] - xm[i]) / (2 * h));
        printf("grad x_once[%d] %.17g %.17g\n", i, after[i], once[i]);
        printf("grad x_untouched[%d] %.17g %.17g\n", i, x[i], 100.0 + i);
    }
    return 0;
}
