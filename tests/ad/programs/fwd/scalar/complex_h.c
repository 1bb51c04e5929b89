// Forward mode through C99 complex arithmetic: clang's inline multiply/divide with
// their __muldc3/__divdc3 fallbacks (and __mulsc3/__divsc3 for float complex,
// returned as <2 x float>), cexp, clog, csqrt, cabs, carg, direct runtime calls, and a
// complex Newton iteration. The tangent is dw = f'(z) dz (w = x y: dx y + x dy); it
// was "forward mode does not differentiate complex '__muldc3' yet" (ClangEnzyme-19
// returns -5.9e108 for the Newton iteration's derivative).
// Reference: central differences of the same function in double, h = 1e-6.
// tol: rel=1e-6 abs=1e-9
// grads: 10
#include <complex.h>
#include <stdio.h>

double __enzyme_fwddiff(void *, ...);
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

double root_magnitude(double a) {  /* a root of z^3 + a z + 1 by Newton's method */
    double complex z = 0.5 + 0.5 * I;
    for (int it = 0; it < 60; it++) {
        double complex p = z * z * z + a * z + 1.0, dp = 3.0 * z * z + a;
        z = z - p / dp;
    }
    return cabs(z) + creal(z * z);
}

int main(void) {
    double h = 1e-6, x = 0.8, y = -0.4;
    printf("grad f_x %.17g %.17g\n", __enzyme_fwddiff((void *)f, x, 1.0, y, 0.0),
           (f(x + h, y) - f(x - h, y)) / (2 * h));
    printf("grad f_y %.17g %.17g\n", __enzyme_fwddiff((void *)f, x, 0.0, y, 1.0),
           (f(x, y + h) - f(x, y - h)) / (2 * h));
    for (float gx = 0.2f; gx < 1.5f; gx += 0.5f) {
        /* float code: its derivative agrees with its double twin's to ~3e-7 */
        float dg = ((float (*)(void *, float, float))__enzyme_fwddiff)((void *)g, gx, 1.0f);
        printf("grad g[%g] %.17g %.17g\n", gx, (double)dg, (g_in_double(gx + h) - g_in_double(gx - h)) / (2 * h));
    }
    double v[4] = {0.3, 0.7, -1.1, 0.4};
    for (int i = 0; i < 4; i++) {
        double t[4] = {0, 0, 0, 0};
        t[i] = 1;
        double dm = __enzyme_fwddiff((void *)runtime_calls, v[0], t[0], v[1], t[1], v[2], t[2], v[3], t[3]);
        double s = v[i];
        v[i] = s + h;
        double p = runtime_calls(v[0], v[1], v[2], v[3]);
        v[i] = s - h;
        double q = runtime_calls(v[0], v[1], v[2], v[3]);
        v[i] = s;
        printf("grad runtime[%d] %.17g %.17g\n", i, dm, (p - q) / (2 * h));
    }
    double a = 0.7;
    printf("grad newton %.17g %.17g\n", __enzyme_fwddiff((void *)root_magnitude, a, 1.0),
           (root_magnitude(a + h) - root_magnitude(a - h)) / (2 * h));
    return 0;
}
