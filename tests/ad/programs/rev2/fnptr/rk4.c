// Classical RK4 calling the right-hand side through a function pointer stored in a
// problem struct (Lotka-Volterra and a damped oscillator). Reference: central
// differences of the primal (h = 1e-6 relative).
// tol: rel=1e-6 abs=1e-9
// grads: 8
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

typedef void (*rhs_fn)(double t, const double *y, const double *p, double *dydt);
typedef struct {
    rhs_fn f;
    int dim;
} Problem;

void lotka(double t, const double *y, const double *p, double *d) {
    (void)t;
    d[0] = p[0] * y[0] - p[1] * y[0] * y[1];
    d[1] = p[1] * y[0] * y[1] - p[0] * 0.5 * y[1];
}
void oscillator(double t, const double *y, const double *p, double *d) {
    d[0] = y[1];
    d[1] = -p[0] * y[0] - p[1] * y[1] + 0.1 * sin(t);
}

__attribute__((noinline)) double rk4(const Problem *pb, const double *y0, const double *p,
                                     double dt, int steps) {
    double y[2] = {y0[0], y0[1]}, k1[2], k2[2], k3[2], k4[2], tmp[2];
    double t = 0;
    for (int s = 0; s < steps; s++) {
        pb->f(t, y, p, k1);
        for (int i = 0; i < pb->dim; i++) tmp[i] = y[i] + 0.5 * dt * k1[i];
        pb->f(t + 0.5 * dt, tmp, p, k2);
        for (int i = 0; i < pb->dim; i++) tmp[i] = y[i] + 0.5 * dt * k2[i];
        pb->f(t + 0.5 * dt, tmp, p, k3);
        for (int i = 0; i < pb->dim; i++) tmp[i] = y[i] + dt * k3[i];
        pb->f(t + dt, tmp, p, k4);
        for (int i = 0; i < pb->dim; i++)
            y[i] += dt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
        t += dt;
    }
    return y[0] * y[1] + y[0];
}

static const Problem problems[2] = {{lotka, 2}, {oscillator, 2}};

double objective(const double *y0, const double *p, int which) {
    return rk4(&problems[which], y0, p, 0.05, 40);
}

int main(void) {
    double y0s[2][2] = {{1.2, 0.7}, {1.0, 0.0}}, ps[2][2] = {{1.1, 0.4}, {4.0, 0.2}};
    for (int w = 0; w < 2; w++) {
        double *y0 = y0s[w], *p = ps[w], dy0[2] = {0}, dp[2] = {0};
        __enzyme_autodiff((void *)objective, enzyme_dup, y0, dy0, enzyme_dup, p, dp,
                          enzyme_const, w);
        for (int i = 0; i < 4; i++) {
            double *v = i < 2 ? &y0[i] : &p[i - 2];
            double save = *v, h = 1e-6 * fmax(1.0, fabs(save));
            *v = save + h;
            double fp = objective(y0, p, w);
            *v = save - h;
            double fm = objective(y0, p, w);
            *v = save;
            printf("grad prob%d.d%d %.17g %.17g\n", w, i, i < 2 ? dy0[i] : dp[i - 2],
                   (fp - fm) / (2 * h));
        }
    }
    return 0;
}
