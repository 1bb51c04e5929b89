/* ODE objectives: the integrators call the right-hand side only through
 * the function pointer they are given. */
#include "ode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ode_rhs_ring(double t, const double *y, const double *k, double *dy, int n)
{
    double forcing = 0.2 * cos(t);
    for (int i = 0; i < n; i++) {
        int next = i + 1 == n ? 0 : i + 1;
        dy[i] = -k[i] * y[i] - 0.1 * y[i] * y[i] * y[i] + 0.5 * sin(y[next]) + forcing;
    }
}

void ode_integrate_euler(ode_rhs f, double *y, const double *k, int n, int steps, double dt)
{
    double *dy = malloc(sizeof(double) * n);
    for (int s = 0; s < steps; s++) {
        f(s * dt, y, k, dy, n);
        for (int i = 0; i < n; i++)
            y[i] += dt * dy[i];
    }
    free(dy);
}

void ode_integrate_rk4(ode_rhs f, double *y, const double *k, int n, int steps, double dt)
{
    double *k1 = malloc(sizeof(double) * n), *k2 = malloc(sizeof(double) * n);
    double *k3 = malloc(sizeof(double) * n), *k4 = malloc(sizeof(double) * n);
    double *tmp = malloc(sizeof(double) * n);
    for (int s = 0; s < steps; s++) {
        double t = s * dt;
        f(t, y, k, k1, n);
        for (int i = 0; i < n; i++)
            tmp[i] = y[i] + 0.5 * dt * k1[i];
        f(t + 0.5 * dt, tmp, k, k2, n);
        for (int i = 0; i < n; i++)
            tmp[i] = y[i] + 0.5 * dt * k2[i];
        f(t + 0.5 * dt, tmp, k, k3, n);
        for (int i = 0; i < n; i++)
            tmp[i] = y[i] + dt * k3[i];
        f(t + dt, tmp, k, k4, n);
        for (int i = 0; i < n; i++)
            y[i] += dt / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
    free(k1);
    free(k2);
    free(k3);
    free(k4);
    free(tmp);
}

static double ode_final_loss(const double *y, int n)
{
    double loss = 0;
    for (int i = 0; i < n; i++)
        loss += y[i] * y[i];
    return loss;
}

double ode_euler_objective(const double *y0, const double *k, int n, int steps, double dt)
{
    double *y = malloc(sizeof(double) * n);
    memcpy(y, y0, sizeof(double) * n);
    ode_integrate_euler(ode_rhs_ring, y, k, n, steps, dt);
    double loss = ode_final_loss(y, n);
    free(y);
    return loss;
}

double ode_rk4_objective(const double *y0, const double *k, int n, int steps, double dt)
{
    double *y = malloc(sizeof(double) * n);
    memcpy(y, y0, sizeof(double) * n);
    ode_integrate_rk4(ode_rhs_ring, y, k, n, steps, dt);
    double loss = ode_final_loss(y, n);
    free(y);
    return loss;
}
