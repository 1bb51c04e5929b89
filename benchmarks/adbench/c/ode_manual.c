/* Hand-written discrete adjoints of the Euler and RK4 integrations of
 * ode_rhs_ring: the forward pass stores the state at every step; the
 * reverse pass walks the steps backwards (RK4 recomputes its stages from
 * the stored state) applying the right-hand side's transposed Jacobian. */
#include "ode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* dy += J_y(y)^T lam, dk += J_k(y)^T lam for ode_rhs_ring (t plays no part). */
static void ode_ring_vjp(const double *y, const double *k, const double *lam, double *dy,
                         double *dk, int n)
{
    for (int i = 0; i < n; i++) {
        int prev = i == 0 ? n - 1 : i - 1; /* dy_prev/dt depends on sin(y_i) */
        dy[i] += lam[i] * (-k[i] - 0.3 * y[i] * y[i]) + 0.5 * cos(y[i]) * lam[prev];
        dk[i] -= y[i] * lam[i];
    }
}

void ode_euler_gradient(const double *y0, const double *k, int n, int steps, double dt,
                        double *d_y0, double *d_k)
{
    double *traj = malloc(sizeof(double) * n * ((size_t)steps + 1));
    double *f = malloc(sizeof(double) * n);
    double *adj = malloc(sizeof(double) * n);
    memcpy(traj, y0, sizeof(double) * n);
    for (int s = 0; s < steps; s++) {
        const double *y = &traj[(size_t)s * n];
        ode_rhs_ring(s * dt, y, k, f, n);
        for (int i = 0; i < n; i++)
            traj[(size_t)(s + 1) * n + i] = y[i] + dt * f[i];
    }
    memset(d_k, 0, sizeof(double) * n);
    for (int i = 0; i < n; i++)
        d_y0[i] = 2 * traj[(size_t)steps * n + i];
    for (int s = steps - 1; s >= 0; s--) {
        for (int i = 0; i < n; i++)
            adj[i] = dt * d_y0[i];
        ode_ring_vjp(&traj[(size_t)s * n], k, adj, d_y0, d_k, n);
    }
    free(traj);
    free(f);
    free(adj);
}

void ode_rk4_gradient(const double *y0, const double *k, int n, int steps, double dt,
                      double *d_y0, double *d_k)
{
    double *traj = malloc(sizeof(double) * n * ((size_t)steps + 1));
    double *st[4], *arg[4], *bar[4]; /* stage slopes, stage inputs, slope adjoints */
    for (int j = 0; j < 4; j++) {
        st[j] = malloc(sizeof(double) * n);
        arg[j] = malloc(sizeof(double) * n);
        bar[j] = malloc(sizeof(double) * n);
    }
    double *ybar = malloc(sizeof(double) * n);
    static const double offset[4] = {0, 0.5, 0.5, 1};   /* stage time / input offsets */
    static const double weight[4] = {1, 2, 2, 1};       /* times dt/6 */

    memcpy(traj, y0, sizeof(double) * n);
    for (int s = 0; s < steps; s++) {
        const double *y = &traj[(size_t)s * n];
        double *ynext = &traj[(size_t)(s + 1) * n];
        for (int j = 0; j < 4; j++) {
            for (int i = 0; i < n; i++)
                arg[j][i] = j == 0 ? y[i] : y[i] + offset[j] * dt * st[j - 1][i];
            ode_rhs_ring(s * dt + offset[j] * dt, arg[j], k, st[j], n);
        }
        for (int i = 0; i < n; i++)
            ynext[i] = y[i] + dt / 6 * (st[0][i] + 2 * st[1][i] + 2 * st[2][i] + st[3][i]);
    }

    memset(d_k, 0, sizeof(double) * n);
    for (int i = 0; i < n; i++)
        d_y0[i] = 2 * traj[(size_t)steps * n + i];
    for (int s = steps - 1; s >= 0; s--) {
        const double *y = &traj[(size_t)s * n];
        for (int j = 0; j < 3; j++) { /* stage inputs of this step, again */
            for (int i = 0; i < n; i++)
                arg[j][i] = j == 0 ? y[i] : y[i] + offset[j] * dt * st[j - 1][i];
            ode_rhs_ring(s * dt + offset[j] * dt, arg[j], k, st[j], n);
        }
        for (int i = 0; i < n; i++)
            arg[3][i] = y[i] + dt * st[2][i];
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < n; i++)
                bar[j][i] = weight[j] * dt / 6 * d_y0[i];
        for (int j = 3; j >= 0; j--) {
            memset(ybar, 0, sizeof(double) * n);
            ode_ring_vjp(arg[j], k, bar[j], ybar, d_k, n);
            for (int i = 0; i < n; i++) {
                d_y0[i] += ybar[i];
                if (j > 0)
                    bar[j - 1][i] += offset[j] * dt * ybar[i];
            }
        }
    }
    free(traj);
    for (int j = 0; j < 4; j++) {
        free(st[j]);
        free(arg[j]);
        free(bar[j]);
    }
    free(ybar);
}
