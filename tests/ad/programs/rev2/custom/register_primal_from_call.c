// A custom derivative whose augmented function returns nothing for a function
// returning a float (Enzyme's convention: the augmented pass returns the primal only
// when it is a pointer): the original call computes the primal, the reverse
// function gives the derivative. The primal is the fast inverse square root, whose
// bit manipulation could not be differentiated itself.
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void __enzyme_autodiff(void *, ...);

float fast_rsqrt(float number) {
    float y = number;
    int32_t i;
    memcpy(&i, &y, sizeof i);
    i = 0x5f3759df - (i >> 1);
    memcpy(&y, &i, sizeof y);
    return y * (1.5f - 0.5f * number * y * y);
}

void aug_rsqrt(float x) { (void)x; }

float rev_rsqrt(float x, float d_result) { return -d_result * fast_rsqrt(x) / (2 * x); }

void *__enzyme_register_gradient_rsqrt[3] = {(void *)fast_rsqrt, (void *)aug_rsqrt, (void *)rev_rsqrt};

double inverse_norm(const double *a, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * a[i];
    return fast_rsqrt((float)s);
}

int main(void) {
    double a[3] = {1, 2, 3}, da[3] = {0};
    __enzyme_autodiff((void *)inverse_norm, a, da, 3);
    /* d/da_i of r(s) with s = sum a^2 and r' = -r/(2s) as rev_rsqrt computes it */
    float s = 14.0f, r = fast_rsqrt(s);
    for (int i = 0; i < 3; i++) {
        double expect = (double)(-1.0f * r / (2 * s)) * 2 * a[i];
        printf("grad da[%d] %.17g %.17g\n", i, da[i], expect);
    }
    return 0;
}
