/* enzcc -O2 -g fwd_dbg_badref.c -lm: "the AD stage produced invalid IR"
 * (#dbg_value(float %<badref>) in fwddiffe_g) */
#include <enzyme/enzyme.h>
#include <stdio.h>
float g(const float *x, int n, float sigma) {
    float s = 0;
    for (int i = 0; i < n; i++) {
        float z = x[i] / sigma;
        s += 0.5 * z * z;
    }
    return s;
}
extern double __enzyme_fwddiff_f(void *, ...);
int main(void) {
    float x[3] = {1, 2, 3}, dx[3] = {0, 0, 0};
    float t = __enzyme_fwddiff((void *)g, enzyme_dup, x, dx, enzyme_const, 3, 2.0f, 1.0f);
    printf("%g\n", t);
    return 0;
}
