// C99 complex arithmetic and libm complex functions: clang multiplies/divides
// inline with a fallback call to __muldc3/__divdc3 (and __mulsc3/__divsc3 for
// float complex, returned as <2 x float>), and calls cexp, clog, csqrt, cabs, carg.
// The runtime calls are also made directly, so their reverse rules run.
// Reference: central differences of the same function in double, h = 1e-6.
// tol: rel=1e-6 abs=1e-9
// grads: 9
#include <complex.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
extern double complex __muldc3(double, double, double, double);
extern double complex __divdc3(double, double, double, double);

double f(double x, double y) {
    double complex z = x + I * y;
    double complex w = z * (z + 2.0) / (z - 3.0 * I);
    w = cexp(w * 0.1) + csqrt(w) + clog(w + 1.0);
    return creal(w) + 2 * cimag(w) + cabs(w) + carg(w) * 0.5;
}

float g(float x) {
    float complex z = x + 2.0f * I * x;
    z = z * z / (z + 1.0f);
    z = cexpf(z * 0.1f);
    return crealf(z) + cabsf(z);
}

double g_in_double(double x) {
    double complex z = x + 2.0 * I * x;
    z = z * z / (z + 1.0);
    z = cexp(z * 0.1);
    return creal(z) + cabs(z);
}

double runtime_calls(double a, double b, double c, double d) {
    double complex r = __muldc3(a, b, c, d) + __divdc3(a, b, c + 1, d);
    return creal(r) * 3 + cimag(r);
}

typedef struct { double a, b; } P2;
typedef struct { double a, b, c, d; } P4;

int main(void) {
    double h = 1e-6, x = 0.8, y = -0.4;
    P2 d = ((P2(*)(void *, double, double))__enzyme_autodiff)((void *)f, x, y);
    printf("grad f_x %.17g %.17g\n", d.a, (f(x + h, y) - f(x - h, y)) / (2 * h));
    printf("grad f_y %.17g %.17g\n", d.b, (f(x, y + h) - f(x, y - h)) / (2 * h));
    for (float gx = 0.2f; gx < 1.5f; gx += 0.5f) {
        /* float code: its derivative agrees with its double twin's to ~3e-7 */
        float dg = ((float (*)(void *, float))__enzyme_autodiff)((void *)g, gx);
        printf("grad g[%g] %.17g %.17g\n", gx, (double)dg, (g_in_double(gx + h) - g_in_double(gx - h)) / (2 * h));
    }
    double v[4] = {0.3, 0.7, -1.1, 0.4};
    P4 m = ((P4(*)(void *, double, double, double, double))__enzyme_autodiff)((void *)runtime_calls, v[0], v[1], v[2], v[3]);
    double dm[4] = {m.a, m.b, m.c, m.d};
    for (int i = 0; i < 4; i++) {
        double s = v[i];
        v[i] = s + h;
        double p = runtime_calls(v[0], v[1], v[2], v[3]);
        v[i] = s - h;
        double q = runtime_calls(v[0], v[1], v[2], v[3]);
        v[i] = s;
        printf("grad runtime[%d] %.17g %.17g\n", i, dm[i], (p - q) / (2 * h));
    }
    return 0;
}
