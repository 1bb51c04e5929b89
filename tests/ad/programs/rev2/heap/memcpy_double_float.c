// memcpy of double data and of float data in the same program: the adjoint of a copy
// depends on the element type (8-byte double vs 4-byte float accumulation).
// tol: rel=1e-5 abs=1e-6
// grads: 8
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
float __enzyme_autodiff_f(void *, ...);

double copy_d(const double *x, int n) {
    double tmp[8];
    memcpy(tmp, x, n * sizeof(double));
    double s = 0;
    for (int i = 0; i < n; i++) s += tmp[i] * tmp[i] * (i + 1);
    return s;
}

float copy_f(const float *x, int n) {
    float tmp[8];
    memcpy(tmp, x, n * sizeof(float));
    float s = 0;
    for (int i = 0; i < n; i++) s += tmp[i] * tmp[i] * tmp[i];
    return s;
}

int main(void) {
    double x[4] = {1.0, -2.0, 0.5, 3.0}, dx[4] = {0};
    __enzyme_autodiff((void *)copy_d, enzyme_dup, x, dx, enzyme_const, 4);
    for (int i = 0; i < 4; i++)
        printf("grad double.dx[%d] %.17g %.17g\n", i, dx[i], 2.0 * (i + 1) * x[i]);
    float y[4] = {0.5f, -1.5f, 2.0f, 0.25f}, dy[4] = {0};
    __enzyme_autodiff_f((void *)copy_f, enzyme_dup, y, dy, enzyme_const, 4);
    for (int i = 0; i < 4; i++)
        printf("grad float.dy[%d] %.17g %.17g\n", i, (double)dy[i], 3.0 * y[i] * y[i]);
    return 0;
}
