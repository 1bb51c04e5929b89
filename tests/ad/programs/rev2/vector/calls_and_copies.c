// Vector reverse mode through more of the engine: a call through a function pointer
// (each candidate's derivative takes the W lanes), a recursive noinline function, a
// memcpy between arrays (its adjoint per lane), a stack array, a -O0 friendly while
// loop with a data-dependent exit, and enzyme_primal_return (the result, then the W
// adjoints of the enzyme_out argument). Lanes differ through the seeds of an output
// written through an enzyme_dupv pointer with a run-time stride.
// Reference: central finite differences of ret + <seed_k, out>; width-1 gradients.
// tol: rel=1e-6 abs=1e-8
// grads: 33
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_width, enzyme_dupv, enzyme_dup, enzyme_out, enzyme_const, enzyme_primal_return;
typedef struct { double result; double dk[2]; } Res2;
Res2 __enzyme_autodiff_res(void *, ...);
typedef struct { double result; double dk; } Res1;
Res1 __enzyme_autodiff_res1(void *, ...);

#define N 3

typedef double (*unary)(double);
__attribute__((noinline)) double twice(double x) { return 2 * x * x; }
__attribute__((noinline)) double wave(double x) { return sin(x) * x; }

__attribute__((noinline)) double power_sum(const double *v, int n, double k) {
    if (n == 0) return 0;
    return v[n - 1] * pow(k, n) + power_sum(v, n - 1, k);
}

double f(double *v, double *out, double k, unary op, int n) {
    double local[N];
    memcpy(local, v, sizeof local);
    double s = power_sum(local, n, k);
    int i = 0;
    while (i < n && s < 100) {
        out[i] = op(local[i] * k) + s;
        s += out[i] * 0.5;
        i++;
    }
    return s * k;
}

static double combo(const double *v0, double k, const double *seed, unary op) {
    double v[N], out[N] = {0};
    memcpy(v, v0, sizeof v);
    double r = f(v, out, k, op, N);
    for (int i = 0; i < N; i++) r += seed[i] * out[i];
    return r;
}

int main(int argc, char **argv) {
    (void)argv;
    unary op = argc > 5 ? twice : wave;  /* chosen at run time: an indirect call */
    double v[N] = {0.4, -0.7, 1.2}, out[N] = {0}, k = 0.9;
    long stride = sizeof(double) * (N + argc);  /* a run-time stride: lanes N + 1 apart */
    double dv[2][N + 1] = {{0}}, dout[2][N + 1] = {{1, 0, 0}, {0.5, 0, -1}};
    double seeds[2][N] = {{1, 0, 0}, {0.5, 0, -1}};
    Res2 g = __enzyme_autodiff_res((void *)f, enzyme_primal_return, enzyme_width, 2, enzyme_dupv, stride, v, dv[0],
                                   enzyme_dupv, stride, out, dout[0], enzyme_out, k, enzyme_const, op,
                                   enzyme_const, N);
    double h = 1e-6;
    const double none[N] = {0};
    printf("grad result %.17g %.17g\n", g.result, combo(v, k, none, op));
    for (int lane = 0; lane < 2; lane++) {
        double fk = (combo(v, k + h, seeds[lane], op) - combo(v, k - h, seeds[lane], op)) / (2 * h);
        printf("grad lane%d.dk %.17g %.17g\n", lane, g.dk[lane], fk);
        double dv1[N] = {0}, dout1[N], v1[N], out1[N] = {0};
        memcpy(v1, v, sizeof v1);
        memcpy(dout1, seeds[lane], sizeof dout1);
        Res1 g1 = __enzyme_autodiff_res1((void *)f, enzyme_primal_return, enzyme_dup, v1, dv1, enzyme_dup, out1,
                                         dout1, enzyme_out, k, enzyme_const, op, enzyme_const, N);
        printf("grad lane%d.dk.width1 %.17g %.17g\n", lane, g.dk[lane], g1.dk);
        printf("grad lane%d.result.width1 %.17g %.17g\n", lane, g.result, g1.result);
        for (int j = 0; j < N; j++) {
            double vp[N], vm[N];
            memcpy(vp, v, sizeof vp);
            memcpy(vm, v, sizeof vm);
            vp[j] += h;
            vm[j] -= h;
            double fd = (combo(vp, k, seeds[lane], op) - combo(vm, k, seeds[lane], op)) / (2 * h);
            printf("grad lane%d.dv[%d] %.17g %.17g\n", lane, j, dv[lane][j], fd);
            printf("grad lane%d.dv[%d].width1 %.17g %.17g\n", lane, j, dv[lane][j], dv1[j]);
            printf("grad lane%d.out[%d] %.17g %.17g\n", lane, j, out[j], out1[j]);
            printf("grad lane%d.dout[%d] %.17g %.17g\n", lane, j, dout[lane][j], dout1[j]);
        }
        printf("grad lane%d.gap %.17g %.17g\n", lane, dv[lane][N] + dout[lane][N], 0.0);
    }
    return 0;
}
