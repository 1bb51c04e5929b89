/* An ODE integrator (classical RK4 and adaptive RK45-style step control) over a
   struct-of-doubles state, with the right-hand side passed as a function pointer and
   parameters through a void* context: the shape of simulation codes people
   differentiate. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#define DIM 4

typedef void (*rhs_fn)(double t, const double *y, double *dy, const void *ctx);

struct pendulum { double g, len, damping; };
struct lotka { double a, b, c, d; };

static void pendulum_rhs(double t, const double *y, double *dy, const void *ctx) {
    const struct pendulum *p = ctx;
    (void)t;
    dy[0] = y[1];
    dy[1] = -p->g / p->len * sin(y[0]) - p->damping * y[1];
    dy[2] = y[3];
    dy[3] = -p->g / p->len * sin(y[2]) - p->damping * y[3] + 0.01 * (y[0] - y[2]);
}

static void lotka_rhs(double t, const double *y, double *dy, const void *ctx) {
    const struct lotka *l = ctx;
    double forcing = 0.1 * cos(t);
    dy[0] = l->a * y[0] - l->b * y[0] * y[1] + forcing;
    dy[1] = l->d * y[0] * y[1] - l->c * y[1];
    dy[2] = -y[2];
    dy[3] = 0;
}

static void rk4_step(rhs_fn f, const void *ctx, double t, double h, double *y) {
    double k1[DIM], k2[DIM], k3[DIM], k4[DIM], tmp[DIM];
    f(t, y, k1, ctx);
    for (int i = 0; i < DIM; i++) tmp[i] = y[i] + 0.5 * h * k1[i];
    f(t + 0.5 * h, tmp, k2, ctx);
    for (int i = 0; i < DIM; i++) tmp[i] = y[i] + 0.5 * h * k2[i];
    f(t + 0.5 * h, tmp, k3, ctx);
    for (int i = 0; i < DIM; i++) tmp[i] = y[i] + h * k3[i];
    f(t + h, tmp, k4, ctx);
    for (int i = 0; i < DIM; i++)
        y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

static double error_norm(const double *a, const double *b) {
    double m = 0;
    for (int i = 0; i < DIM; i++)
        m = fmax(m, fabs(a[i] - b[i]) / (1e-6 + fabs(a[i])));
    return m;
}

static int integrate_adaptive(rhs_fn f, const void *ctx, double t0, double t1, double *y, double tol) {
    double t = t0, h = (t1 - t0) / 16;
    int steps = 0;
    while (t < t1 && steps < 10000) {
        if (t + h > t1)
            h = t1 - t;
        double full[DIM], half[DIM];
        memcpy(full, y, sizeof full);
        memcpy(half, y, sizeof half);
        rk4_step(f, ctx, t, h, full);
        rk4_step(f, ctx, t, h / 2, half);
        rk4_step(f, ctx, t + h / 2, h / 2, half);
        double err = error_norm(half, full);
        if (err < tol) {
            t += h;
            memcpy(y, half, sizeof half);
            steps++;
        }
        h *= fmin(2.0, fmax(0.2, 0.9 * pow(tol / (err + 1e-300), 0.2)));
    }
    return steps;
}

static double energy(const struct pendulum *p, const double *y) {
    return 0.5 * (y[1] * y[1] + y[3] * y[3]) + p->g / p->len * (2 - cos(y[0]) - cos(y[2]));
}

int main(int argc, char **argv) {
    (void)argv;
    struct pendulum p = { 9.81, 1.0 + 0.1 * argc, 0.05 };
    double y[DIM] = { 0.5, 0, -0.25, 0 };
    double e0 = energy(&p, y);
    int steps = integrate_adaptive(pendulum_rhs, &p, 0, 5, y, 1e-8);
    struct lotka l = { 1.1, 0.4, 0.4, 0.1 };
    double z[DIM] = { 10, 10, 1, 0 };
    for (int i = 0; i < 100 * argc; i++)
        rk4_step(lotka_rhs, &l, i * 0.01, 0.01, z);
    printf("%d %g %g %g %g\n", steps, e0, energy(&p, y), z[0], z[1]);
    return 0;
}
