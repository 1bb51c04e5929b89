/* Brusselator gradient by reverse-mode AD of the unmodified objective. */
#include "bruss.h"
#include "enzyme_api.h"

#include <string.h>

void bruss_gradient(const double *u0, const double *v0, const double *p, int N, int steps,
                    double dt, double *d_u0, double *d_v0, double *d_p)
{
    double loss = 0, d_loss = 1.0;
    memset(d_u0, 0, sizeof(double) * N * N);
    memset(d_v0, 0, sizeof(double) * N * N);
    memset(d_p, 0, sizeof(double) * 3);
    __enzyme_autodiff((void *)bruss_objective, enzyme_dup, u0, d_u0, enzyme_dup, v0, d_v0,
                      enzyme_dup, p, d_p, enzyme_const, N, enzyme_const, steps, enzyme_const,
                      dt, enzyme_dupnoneed, &loss, &d_loss);
}
