/* Brusselator objective: two state buffers swapped every step. */
#include "bruss.h"

#include <stdlib.h>
#include <string.h>

static double bruss_forcing(int i, int j, int N, double t)
{
    double x = (double)i / N - 0.3, y = (double)j / N - 0.6;
    return t >= 0.1 && x * x + y * y <= 0.01 ? 5.0 : 0.0;
}

/* Periodic 5-point Laplacian of f at cell (i, j), times dx^2. */
static double bruss_lap(const double *f, int i, int j, int N)
{
    int il = i == 0 ? N - 1 : i - 1, ir = i == N - 1 ? 0 : i + 1;
    int jd = j == 0 ? N - 1 : j - 1, ju = j == N - 1 ? 0 : j + 1;
    return f[j * N + il] + f[j * N + ir] + f[jd * N + i] + f[ju * N + i] - 4 * f[j * N + i];
}

void bruss_objective(const double *u0, const double *v0, const double *p, int N, int steps,
                     double dt, double *loss)
{
    size_t cells = (size_t)N * N;
    double *u = malloc(sizeof(double) * cells), *v = malloc(sizeof(double) * cells);
    double *un = malloc(sizeof(double) * cells), *vn = malloc(sizeof(double) * cells);
    memcpy(u, u0, sizeof(double) * cells);
    memcpy(v, v0, sizeof(double) * cells);
    double a = p[0], b = p[1], diff = p[2] * N * N; /* alpha / dx^2 */

    for (int s = 0; s < steps; s++) {
        double t = s * dt;
        for (int j = 0; j < N; j++) {
            for (int i = 0; i < N; i++) {
                int c = j * N + i;
                double uuv = u[c] * u[c] * v[c];
                un[c] = u[c] + dt * (a + uuv - (b + 1) * u[c] + diff * bruss_lap(u, i, j, N) +
                                     bruss_forcing(i, j, N, t));
                vn[c] = v[c] + dt * (b * u[c] - uuv + diff * bruss_lap(v, i, j, N));
            }
        }
        double *tu = u, *tv = v;
        u = un;
        v = vn;
        un = tu;
        vn = tv;
    }

    double sum = 0;
    for (size_t c = 0; c < cells; c++)
        sum += u[c] * u[c] + v[c] * v[c];
    *loss = sum / cells;
    free(u);
    free(v);
    free(un);
    free(vn);
}
