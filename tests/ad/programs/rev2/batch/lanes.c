// __enzyme_batch: a function evaluated for 4 lanes in one call, with per-lane values
// (unmarked and enzyme_vector), a value shared by all lanes (enzyme_scalar), a buffer
// split into lanes (enzyme_buffer), a struct result and a void function; the batched
// functions are derivatives themselves (a gradient and a forward tangent per lane).
// References: the analytic derivatives.
// tol: rel=1e-12 abs=1e-14
// grads: 16
#include <math.h>
#include <stdio.h>

extern int enzyme_width, enzyme_vector, enzyme_scalar, enzyme_buffer, enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct { double lane[4]; } Four;
Four __enzyme_batch(void *, ...);
void __enzyme_batch_void(void *, ...);

static double f(double x, double c) { return sin(c * x) * x; }
static double df(double x, double c) { return c * cos(c * x) * x + sin(c * x); }

double grad_f(double x, double c) {
    return __enzyme_autodiff((void *)f, x, enzyme_const, c);
}
double tangent_f(double x, double c) {
    return __enzyme_fwddiff((void *)f, x, 1.0, enzyme_const, c);
}

/* gradient of sum_i p_i^3 * k into g (a lane's slice of a buffer) */
static double cube_sum(const double *p, double k) { return k * (p[0] * p[0] * p[0] + p[1] * p[1] * p[1]); }
void grad_cube(const double *p, double *g, double k) {
    __enzyme_autodiff((void *)cube_sum, enzyme_dup, p, g, enzyme_const, k);
}

int main(void) {
    const double xs[4] = {0.3, -1.2, 2.5, 0.7}, c = 1.3;
    Four g = __enzyme_batch((void *)grad_f, enzyme_width, 4, xs[0], xs[1], xs[2], xs[3], enzyme_scalar, c);
    Four t = __enzyme_batch((void *)tangent_f, enzyme_width, 4, enzyme_vector, xs[0], xs[1], xs[2], xs[3],
                            enzyme_scalar, c);
    for (int k = 0; k < 4; k++) {
        printf("grad rev.lane%d %.17g %.17g\n", k, g.lane[k], df(xs[k], c));
        printf("grad fwd.lane%d %.17g %.17g\n", k, t.lane[k], df(xs[k], c));
    }
    double p[8] = {0.5, -1.0, 1.5, 2.0, -0.25, 0.75, 1.25, -1.75}, grads[8] = {0};
    const double ks[4] = {1.0, 2.0, -0.5, 3.0};
    __enzyme_batch_void((void *)grad_cube, enzyme_width, 4, enzyme_buffer, 2 * sizeof(double), p,
                        enzyme_buffer, 2 * sizeof(double), grads, enzyme_vector, ks[0], ks[1], ks[2], ks[3]);
    for (int i = 0; i < 8; i++) printf("grad buffer[%d] %.17g %.17g\n", i, grads[i], 3 * ks[i / 2] * p[i] * p[i]);
    return 0;
}
