// Explicit Euler calling the ODE's right-hand side through a function pointer; the
// integrator is noinline and used with two different right-hand sides, so the call
// stays indirect. Linear decay has an analytic reference; the nonlinear pendulum is
// checked with central differences (h = 1e-6 relative).
// tol: rel=1e-6 abs=1e-9
// grads: 6
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);

typedef void (*rhs_fn)(const double *y, const double *p, double *dydt);

void decay(const double *y, const double *p, double *dydt) { dydt[0] = -p[0] * y[0]; }
void pendulum(const double *y, const double *p, double *dydt) {
    dydt[0] = y[1];
    dydt[1] = -p[0] * sin(y[0]) - p[1] * y[1];
}

__attribute__((noinline)) void euler(rhs_fn f, double *y, const double *p, int dim, double dt,
                                     int steps) {
    double k[4];
    for (int s = 0; s < steps; s++) {
        f(y, p, k);
        for (int i = 0; i < dim; i++) y[i] += dt * k[i];
    }
}

void final_decay(double *y, const double *p, double *out) {
    euler(decay, y, p, 1, 0.01, 50);
    *out = y[0];
}
void final_pendulum(double *y, const double *p, double *out) {
    euler(pendulum, y, p, 2, 0.01, 80);
    *out = y[0] + 0.5 * y[1];
}

static double run_pendulum(const double *y0, const double *p) {
    double y[2] = {y0[0], y0[1]}, out;
    final_pendulum(y, p, &out);
    return out;
}

int main(void) {
    double y[1] = {2.0}, dy[1] = {0}, p[1] = {0.8}, dp[1] = {0}, out = 0, dout = 1.0;
    __enzyme_autodiff((void *)final_decay, enzyme_dup, y, dy, enzyme_dup, p, dp,
                      enzyme_dupnoneed, &out, &dout);
    double q = 1 - 0.8 * 0.01;
    printf("grad decay.dy0 %.17g %.17g\n", dy[0], pow(q, 50));
    printf("grad decay.dk %.17g %.17g\n", dp[0], -50 * 0.01 * 2.0 * pow(q, 49));

    double y0[2] = {0.9, -0.2}, pp[2] = {9.81, 0.3};
    double yy[2] = {y0[0], y0[1]}, dyy[2] = {0}, dpp[2] = {0}, o = 0, dO = 1.0;
    __enzyme_autodiff((void *)final_pendulum, enzyme_dup, yy, dyy, enzyme_dup, pp, dpp,
                      enzyme_dupnoneed, &o, &dO);
    for (int i = 0; i < 4; i++) {
        double *v = i < 2 ? &y0[i] : &pp[i - 2];
        double save = *v, h = 1e-6 * fmax(1.0, fabs(save));
        *v = save + h;
        double fp = run_pendulum(y0, pp);
        *v = save - h;
        double fm = run_pendulum(y0, pp);
        *v = save;
        printf("grad pendulum.d%d %.17g %.17g\n", i, i < 2 ? dyy[i] : dpp[i - 2],
               (fp - fm) / (2 * h));
    }
    return 0;
}
