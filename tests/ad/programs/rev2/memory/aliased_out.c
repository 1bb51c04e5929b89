// The final store writes into the input array itself: the caller passes &x[2] as
// the out-pointer (and &dx[2] as its shadow). The reverse pass must reload x as it
// was before the store (the store is undone at its reverse), and afterwards x[2]
// must hold the result again. As a map of memory, x -> x' with x'[2] = sum x_i^2 +
// x_0 x_3; dx holds the seed on entry and J^T seed on return.
// tol: rel=1e-12 abs=1e-14
// grads: 12
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

void squares(const double *x, int n, double *out) {
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    *out = s + x[0] * x[3];
}

int main(void) {
    enum { N = 6 };
    double x0[N], x[N], dx[N], seed[N];
    for (int i = 0; i < N; i++) { x0[i] = 0.5 + 0.3 * i; seed[i] = 0.1 * (i + 1); }
    memcpy(x, x0, sizeof x);
    memcpy(dx, seed, sizeof dx);
    __enzyme_autodiff((void *)squares, enzyme_dup, x, dx, enzyme_const, N, enzyme_dup, &x[2], &dx[2]);
    double s = 0;
    for (int i = 0; i < N; i++) s += x0[i] * x0[i];
    for (int i = 0; i < N; i++) {
        double ref = (i == 2 ? 0 : seed[i]) + seed[2] * (2 * x0[i] + (i == 0) * x0[3] + (i == 3) * x0[0]);
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], ref);
        double primal = i == 2 ? s + x0[0] * x0[3] : x0[i];
        printf("grad x[%d] %.17g %.17g\n", i, x[i], primal);
    }
    return 0;
}
