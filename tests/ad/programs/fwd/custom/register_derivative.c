// A user's forward derivative: void *__enzyme_register_derivative_NAME[2] =
// {(void *)f, (void *)fwd_f}. fwd_f takes each argument followed by its shadow or
// tangent and computes the primal outputs and their tangents. Here the primal
// quantizes through an integer (its own derivative would be 0), so only the
// registered rule gives the right answer; a scalar one returns {primal, tangent}.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

static void cube_into(const double *src, double *dst) {
    *dst = (double)(long long)(*src * *src * *src * 1e12) * 1e-12;
}

static void cube_into_fwd(const double *src, const double *d_src, double *dst, double *d_dst) {
    *dst = *src * *src * *src;
    *d_dst = 3 * *src * *src * *d_src;
}

void *__enzyme_register_derivative_cube[2] = {(void *)cube_into, (void *)cube_into_fwd};

typedef struct { double primal, tangent; } Dual;

static double quantized_exp(double x) { return (double)(long long)(exp(x) * 1e12) * 1e-12; }

static Dual quantized_exp_fwd(double x, double dx) {
    Dual r = {exp(x), exp(x) * dx};
    return r;
}

void *__enzyme_register_derivative_qexp[2] = {(void *)quantized_exp, (void *)quantized_exp_fwd};

double f(double x) {
    double c;
    cube_into(&x, &c);
    return c + 2 * quantized_exp(x);
}

int main(void) {
    const double xs[4] = {0.5, 1.25, -0.8, 2.0};
    for (int k = 0; k < 4; k++) {
        double x = xs[k];
        printf("grad f'@%g %.17g %.17g\n", x, __enzyme_fwddiff((void *)f, x, 1.0), 3 * x * x + 2 * exp(x));
    }
    return 0;
}
