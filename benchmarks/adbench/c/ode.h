/* ODE: a ring of n nonlinear damped oscillators,
 *   dy_i/dt = -k_i y_i - 0.1 y_i^3 + 0.5 sin(y_{i+1 mod n}) + 0.2 cos(t),
 * integrated from y0 over `steps` steps of dt by explicit Euler or classic
 * RK4.  The integrators take the right-hand side as a function pointer, as
 * a general-purpose ODE library does.  Loss = sum_i y_i(T)^2. */
#ifndef ODE_H
#define ODE_H

typedef void (*ode_rhs)(double t, const double *y, const double *k, double *dy, int n);

void ode_rhs_ring(double t, const double *y, const double *k, double *dy, int n);
void ode_integrate_euler(ode_rhs f, double *y, const double *k, int n, int steps, double dt);
void ode_integrate_rk4(ode_rhs f, double *y, const double *k, int n, int steps, double dt);

double ode_euler_objective(const double *y0, const double *k, int n, int steps, double dt);
double ode_rk4_objective(const double *y0, const double *k, int n, int steps, double dt);

/* Gradients w.r.t. y0 and k (overwritten). */
void ode_euler_gradient(const double *y0, const double *k, int n, int steps, double dt,
                        double *d_y0, double *d_k);
void ode_rk4_gradient(const double *y0, const double *k, int n, int steps, double dt,
                      double *d_y0, double *d_k);

#endif
