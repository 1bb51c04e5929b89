// A gradient across a static library: spring_energy and vdist live in libspring.a,
// built from `enzcc -c` objects with ar by `CC=enzcc make`; main differentiates it.
// tol: rel=1e-12 abs=1e-14
// grads: 8
// build: make
#include <math.h>
#include <stdio.h>
#include "vec.h"

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

int main(void) {
    enum { N = 4, DIM = 2 };
    double pos[N * DIM] = {0.0, 0.0, 1.2, 0.1, 2.0, 0.9, 2.5, 2.0}, dpos[N * DIM] = {0};
    double rest[N - 1] = {1.0, 1.0, 1.0}, k = 3.0;
    __enzyme_autodiff((void *)spring_energy, enzyme_dup, pos, dpos, enzyme_const, rest,
                      enzyme_const, N, enzyme_const, DIM, enzyme_const, k);
    double ref[N * DIM] = {0};
    for (int i = 0; i + 1 < N; i++) {
        const double *a = pos + i * DIM, *b = pos + (i + 1) * DIM;
        double L = hypot(a[0] - b[0], a[1] - b[1]);
        double c = k * (L - rest[i]) / L;
        for (int j = 0; j < DIM; j++) {
            ref[i * DIM + j] += c * (a[j] - b[j]);
            ref[(i + 1) * DIM + j] -= c * (a[j] - b[j]);
        }
    }
    for (int i = 0; i < N * DIM; i++) printf("grad dpos[%d] %.17g %.17g\n", i, dpos[i], ref[i]);
    return 0;
}
