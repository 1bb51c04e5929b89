/* Issue 17 item 4: the primal results a derivative computes are the primal program's,
 * bit for bit, for float libm calls (tanhf, expf, sinf) of a value the derivative
 * receives as a constant. Prints "mismatches N" (N must be 0); with -DFORWARD the
 * primal comes from __enzyme_fwddiff, otherwise from __enzyme_autodiff. */
#include <math.h>
#include <stdio.h>
extern int enzyme_const, enzyme_dup;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void f(const float *x, float *out, float c) {
    out[0] = tanhf(c) * x[0] + expf(c * 0.37f) * x[1] + sinf(c + 1.1f) * x[0] * x[1];
}

int main(void) {
    int mismatches = 0;
    for (int k = 0; k < 200; k++) {
        float c = 0.01f + 0.013f * (float)k;
        float x[2] = {1.25f, -0.5f}, dx[2] = {1, 0}, plain[1], via_ad[1], d_out[1] = {1};
        f(x, plain, c);
#ifdef FORWARD
        __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_dup, via_ad, d_out, enzyme_const, c);
#else
        __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, via_ad, d_out, enzyme_const, c);
#endif
        if (plain[0] != via_ad[0]) {
            mismatches++;
            printf("c=%.9g primal %.9g, in the derivative %.9g\n", c, plain[0], via_ad[0]);
        }
    }
    printf("mismatches %d\n", mismatches);
    return 0;
}
