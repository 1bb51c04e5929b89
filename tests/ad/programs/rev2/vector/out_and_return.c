// Vector reverse mode with an active return and enzyme_out arguments: enzyme_width, W
// returns W adjoints of each enzyme_out argument (declared as a struct of arrays, as
// with Enzyme), every lane's return seeded with 1.0; separate shadow pointers (W after
// each enzyme_dup argument) seeded differently per lane make the lanes differ. A loop,
// a select, a noinline helper returning a double, a float function (width 2).
// Reference: central finite differences of ret + <seed_k, out>, and the width-1
// gradient of the same seeds.
// tol: rel=1e-6 abs=1e-8
// grads: 33
#include <math.h>
#include <stdio.h>

extern int enzyme_width, enzyme_dup, enzyme_out, enzyme_const;
typedef struct { double da[3]; double db[3]; } Outs3;
Outs3 __enzyme_autodiff_outs(void *, ...);
typedef struct { double da, db; } Outs1;
Outs1 __enzyme_autodiff_one(void *, ...);
typedef struct { float d[2]; } Float2;
Float2 __enzyme_autodiff_float(void *, int, int, float);  /* no promotion of the float */

__attribute__((noinline)) double helper(double a, const double *v, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i] * exp(a * i * 0.1);
    return s;
}

double f(double a, const double *v, double *out, double b, int n) {
    double t = helper(a, v, n);
    double acc = 0;
    for (int i = 0; i < n; i++) {
        double u = v[i] * a - b;
        acc += u > 0 ? u * u : sin(u);
        out[i] = u * t;
    }
    return acc + a * b * t;
}

float g(float a) { return a * a * sinf(a); }

#define N 3
static double combo(double a, const double *v, double b, const double *seed) {
    double out[N];
    double r = f(a, v, out, b, N);
    for (int i = 0; i < N; i++) r += seed[i] * out[i];
    return r;
}

int main(void) {
    double a = 0.7, b = 0.2, v[N] = {1.5, -0.4, 0.9}, out[N];
    double dv[3][N] = {{0}}, seeds[3][N] = {{1, 0, 0}, {0, 0.5, 2}, {0, 0, 0}}, dout[3][N];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < N; i++) dout[k][i] = seeds[k][i];
    Outs3 g3 = __enzyme_autodiff_outs((void *)f, enzyme_width, 3, enzyme_out, a, enzyme_dup, v, dv[0], dv[1], dv[2],
                                      enzyme_dup, out, dout[0], dout[1], dout[2], enzyme_out, b, enzyme_const, N);
    for (int k = 0; k < 3; k++) {
        double h = 1e-6;
        double fa = (combo(a + h, v, b, seeds[k]) - combo(a - h, v, b, seeds[k])) / (2 * h);
        double fb = (combo(a, v, b + h, seeds[k]) - combo(a, v, b - h, seeds[k])) / (2 * h);
        printf("grad lane%d.da %.17g %.17g\n", k, g3.da[k], fa);
        printf("grad lane%d.db %.17g %.17g\n", k, g3.db[k], fb);
        for (int j = 0; j < N; j++) {
            double vp[N], vm[N];
            for (int i = 0; i < N; i++) vp[i] = vm[i] = v[i];
            vp[j] += h;
            vm[j] -= h;
            printf("grad lane%d.dv[%d] %.17g %.17g\n", k, j, dv[k][j], (combo(a, vp, b, seeds[k]) - combo(a, vm, b, seeds[k])) / (2 * h));
        }
        double dv1[N] = {0}, dout1[N], out1[N];
        for (int i = 0; i < N; i++) dout1[i] = seeds[k][i];
        Outs1 g1 = __enzyme_autodiff_one((void *)f, enzyme_out, a, enzyme_dup, v, dv1, enzyme_dup, out1, dout1,
                                         enzyme_out, b, enzyme_const, N);
        printf("grad lane%d.da.width1 %.17g %.17g\n", k, g3.da[k], g1.da);
        printf("grad lane%d.db.width1 %.17g %.17g\n", k, g3.db[k], g1.db);
        for (int j = 0; j < N; j++) printf("grad lane%d.dv[%d].width1 %.17g %.17g\n", k, j, dv[k][j], dv1[j]);
    }
    float x = 1.3f;
    Float2 gf = __enzyme_autodiff_float((void *)g, enzyme_width, 2, x);
    double xd = x, ref = 2 * xd * sin(xd) + xd * xd * cos(xd);
    printf("grad float.lane0 %.9g %.17g\n", gf.d[0], ref);
    printf("grad float.lane1 %.9g %.17g\n", gf.d[1], ref);
    printf("grad float.same %.9g %.9g\n", gf.d[0], gf.d[1]);
    return 0;
}
