/* ODE gradients by reverse-mode AD of the unmodified objectives, whose
 * integrators call the right-hand side through a function pointer. */
#include "enzyme_api.h"
#include "ode.h"

#include <string.h>

void ode_euler_gradient(const double *y0, const double *k, int n, int steps, double dt,
                        double *d_y0, double *d_k)
{
    memset(d_y0, 0, sizeof(double) * n);
    memset(d_k, 0, sizeof(double) * n);
    __enzyme_autodiff((void *)ode_euler_objective, enzyme_dup, y0, d_y0, enzyme_dup, k, d_k,
                      enzyme_const, n, enzyme_const, steps, enzyme_const, dt);
}

void ode_rk4_gradient(const double *y0, const double *k, int n, int steps, double dt,
                      double *d_y0, double *d_k)
{
    memset(d_y0, 0, sizeof(double) * n);
    memset(d_k, 0, sizeof(double) * n);
    __enzyme_autodiff((void *)ode_rk4_objective, enzyme_dup, y0, d_y0, enzyme_dup, k, d_k,
                      enzyme_const, n, enzyme_const, steps, enzyme_const, dt);
}
