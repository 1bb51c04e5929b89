/* Hand-written discrete adjoint of the Brusselator's Euler steps.  The
 * forward pass stores every state; the reverse pass, with (a, b) the
 * adjoints of the step's output (u', v'), uses that the periodic Laplacian
 * is symmetric:
 *   u_bar = a + dt (a (2uv - B - 1) + b (B - 2uv) + D lap(a))
 *   v_bar = b + dt (u^2 (a - b) + D lap(b)),          D = alpha / dx^2
 *   A_bar += dt sum a,  B_bar += dt sum u (b - a),
 *   alpha_bar += dt N^2 sum (a lap(u) + b lap(v)). */
#include "bruss.h"

#include <stdlib.h>
#include <string.h>

static double bruss_manual_forcing(int i, int j, int N, double t)
{
    double x = (double)i / N - 0.3, y = (double)j / N - 0.6;
    return t >= 0.1 && x * x + y * y <= 0.01 ? 5.0 : 0.0;
}

static double bruss_manual_lap(const double *f, int i, int j, int N)
{
    int il = i == 0 ? N - 1 : i - 1, ir = i == N - 1 ? 0 : i + 1;
    int jd = j == 0 ? N - 1 : j - 1, ju = j == N - 1 ? 0 : j + 1;
    return f[j * N + il] + f[j * N + ir] + f[jd * N + i] + f[ju * N + i] - 4 * f[j * N + i];
}

void bruss_gradient(const double *u0, const double *v0, const double *p, int N, int steps,
                    double dt, double *d_u0, double *d_v0, double *d_p)
{
    size_t cells = (size_t)N * N;
    double *traj = malloc(sizeof(double) * 2 * cells * ((size_t)steps + 1)); /* u, v per step */
    double *abar = malloc(sizeof(double) * cells), *bbar = malloc(sizeof(double) * cells);
    double a = p[0], b = p[1], diff = p[2] * N * N;

    memcpy(traj, u0, sizeof(double) * cells);
    memcpy(traj + cells, v0, sizeof(double) * cells);
    for (int s = 0; s < steps; s++) {
        const double *u = &traj[2 * cells * s], *v = u + cells;
        double *un = &traj[2 * cells * (s + 1)], *vn = un + cells;
        double t = s * dt;
        for (int j = 0; j < N; j++) {
            for (int i = 0; i < N; i++) {
                int c = j * N + i;
                double uuv = u[c] * u[c] * v[c];
                un[c] = u[c] + dt * (a + uuv - (b + 1) * u[c] + diff * bruss_manual_lap(u, i, j, N) +
                                     bruss_manual_forcing(i, j, N, t));
                vn[c] = v[c] + dt * (b * u[c] - uuv + diff * bruss_manual_lap(v, i, j, N));
            }
        }
    }

    const double *uT = &traj[2 * cells * steps], *vT = uT + cells;
    for (size_t c = 0; c < cells; c++) {
        d_u0[c] = 2 * uT[c] / cells;
        d_v0[c] = 2 * vT[c] / cells;
    }
    double da = 0, db = 0, dalpha = 0;
    for (int s = steps - 1; s >= 0; s--) {
        const double *u = &traj[2 * cells * s], *v = u + cells;
        memcpy(abar, d_u0, sizeof(double) * cells);
        memcpy(bbar, d_v0, sizeof(double) * cells);
        for (int j = 0; j < N; j++) {
            for (int i = 0; i < N; i++) {
                int c = j * N + i;
                double uv2 = 2 * u[c] * v[c], uu = u[c] * u[c];
                d_u0[c] = abar[c] + dt * (abar[c] * (uv2 - b - 1) + bbar[c] * (b - uv2) +
                                          diff * bruss_manual_lap(abar, i, j, N));
                d_v0[c] = bbar[c] + dt * (uu * (abar[c] - bbar[c]) +
                                          diff * bruss_manual_lap(bbar, i, j, N));
                da += dt * abar[c];
                db += dt * u[c] * (bbar[c] - abar[c]);
                dalpha += dt * N * N * (abar[c] * bruss_manual_lap(u, i, j, N) +
                                        bbar[c] * bruss_manual_lap(v, i, j, N));
            }
        }
    }
    d_p[0] = da;
    d_p[1] = db;
    d_p[2] = dalpha;
    free(traj);
    free(abar);
    free(bbar);
}
