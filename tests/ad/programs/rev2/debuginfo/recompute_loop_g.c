// Built with -g (variable locations), like fwd/debuginfo/float_loop_g.c for
// forward mode: the reverse pass recomputes loop values (the casts and quotient
// the `#dbg_value` of `z` sits on) from copies of instructions, which must not
// carry debug records naming values of another function (`%<badref>`, rejected by
// LLVM). Against the analytic gradient.
// flags: -g
// tol: rel=1e-5 abs=1e-6
// grads: 4
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

float g(const float *x, int n, float sigma) {
    float s = 0;
    for (int i = 0; i < n; i++) {
        float z = x[i] / sigma;
        s += 0.5 * z * z * x[i];
    }
    return s;
}

void outer(const float *x, float *sigma, float *out) {
    for (int r = 0; r < 2; r++) out[r] = g(x, 3, sigma[r]);
}

int main(void) {
    float x[3] = {1, 2, 3}, dx[3] = {0, 0, 0}, sigma[2] = {2.0f, 1.5f}, ds[2] = {0, 0};
    float out[2], dout[2] = {1, 1};
    __enzyme_autodiff((void *)outer, enzyme_dup, x, dx, enzyme_dup, sigma, ds, enzyme_dup, out, dout);
    /* g = sum x^3 / (2 sigma^2): dg/dx_i = 3 x_i^2 / (2 sigma^2), dg/dsigma = -sum x^3 / sigma^3 */
    double cubes = 1 + 8 + 27, w = 1 / (2.0 * 2 * 2) + 1 / (2 * 1.5 * 1.5);
    for (int i = 0; i < 3; i++) printf("grad dx[%d] %.17g %.17g\n", i, (double)dx[i], 3.0 * x[i] * x[i] * w);
    printf("grad dsigma0 %.17g %.17g\n", (double)ds[0], -cubes / 8);
    return 0;
}
