/* Brusselator: the 2-D reaction-diffusion system on an N x N periodic grid
 * (dx = 1/N), by finite differences and explicit Euler steps of dt:
 *   du/dt = A + u^2 v - (B + 1) u + alpha lap(u) + F(x, y, t)
 *   dv/dt = B u - u^2 v + alpha lap(v)
 * F = 5 inside the disc (x-0.3)^2 + (y-0.6)^2 <= 0.01 from t >= 0.1 on.
 * Parameters p = {A, B, alpha}.  Loss = mean over the grid of u^2 + v^2 at
 * the final time.  Cell (i, j) is element j*N + i, at x = i dx, y = j dx. */
#ifndef BRUSS_H
#define BRUSS_H

void bruss_objective(const double *u0, const double *v0, const double *p, int N, int steps,
                     double dt, double *loss);

/* Gradient w.r.t. u0, v0 (N*N each) and p (3), overwritten. */
void bruss_gradient(const double *u0, const double *v0, const double *p, int N, int steps,
                    double dt, double *d_u0, double *d_v0, double *d_p);

#endif
