// The function handed to __enzyme_fwddiff is itself the one with a registered forward
// derivative: the registration applies at the entry point as at calls (as in
// Enzyme). The primal quantizes through an integer (its own derivative is 0), so only
// the registered rule gives the analytic derivative.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double quantized_exp(double x) { return (double)(long long)(exp(x) * 1e12) * 1e-12; }
typedef struct { double primal, tangent; } Dual;
static Dual quantized_exp_fwd(double x, double dx) {
    Dual r = {exp(x), exp(x) * dx};
    return r;
}
static void *__enzyme_register_derivative_qexp[2] = {(void *)quantized_exp, (void *)quantized_exp_fwd};

void cube_into(const double *src, double *dst) { *dst = (double)(long long)(*src * *src * *src * 1e12) * 1e-12; }
static void cube_into_fwd(const double *src, const double *d_src, double *dst, double *d_dst) {
    *dst = *src * *src * *src;
    *d_dst = 3 * *src * *src * *d_src;
}
void *__enzyme_register_derivative_cube[2] = {(void *)cube_into, (void *)cube_into_fwd};

int main(void) {
    const double xs[] = {0.5, -1.25};
    for (int i = 0; i < 2; i++)
        printf("grad qexp@%g %.17g %.17g\n", xs[i], __enzyme_fwddiff((void *)quantized_exp, xs[i], 1.0), exp(xs[i]));
    double src = 1.5, d_src = 2.0, dst = 0, d_dst = 0;
    __enzyme_fwddiff((void *)cube_into, enzyme_dup, &src, &d_src, enzyme_dup, &dst, &d_dst);
    printf("grad cube/d_dst %.17g %.17g\n", d_dst, 3 * src * src * d_src);
    printf("grad cube/dst %.17g %.17g\n", dst, src * src * src);
    return 0;
}
