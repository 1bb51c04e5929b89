// Forward split mode with a tape through recursion: each level of an in-place
// recurrence (x[k] += sin(x[k-1]) x[k], level k after level k-1) runs in
// __enzyme_augmentfwd once, and its tangent replays the same levels from the shared
// tape. Against central finite differences; x must hold the recurrence applied once,
// and what the caller then writes to x must stay (the tangent neither reads nor writes x).
// tol: rel=1e-6 abs=1e-9
// grads: 15
#include <math.h>
#include <stdio.h>
#include <string.h>

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_fwdsplit(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 5

void recur(double *x, int n) {
    if (n <= 1) return;
    recur(x, n - 1);
    x[n - 1] += sin(x[n - 2]) * x[n - 1];
}

int main(void) {
    const double x0[N] = {0.4, -0.8, 1.3, 0.2, -1.1}, v[N] = {1.0, 0.3, -0.5, 2.0, 0.7};
    double x[N], dx[N], once[N], xp[N], xm[N];
    memcpy(x, x0, sizeof x);
    memcpy(dx, v, sizeof dx);
    memcpy(once, x0, sizeof once);
    recur(once, N);
    void *tape = __enzyme_augmentfwd((void *)recur, enzyme_dup, x, dx, enzyme_const, N);
    for (int i = 0; i < N; i++) printf("grad x_once[%d] %.17g %.17g\n", i, x[i], once[i]);
    for (int i = 0; i < N; i++) x[i] = -3.0 - i;
    __enzyme_fwdsplit((void *)recur, enzyme_dup, x, dx, enzyme_const, N, tape);
    for (int i = 0; i < N; i++) printf("grad x_untouched[%d] %.17g %.17g\n", i, x[i], -3.0 - i);
    const double h = 1e-6;
    for (int i = 0; i < N; i++) {
        xp[i] = x0[i] + h * v[i];
        xm[i] = x0[i] - h * v[i];
    }
    recur(xp, N);
    recur(xm, N);
    for (int i = 0; i < N; i++) printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (xp[i] - xm[i]) / (2 * h));
    return 0;
}
