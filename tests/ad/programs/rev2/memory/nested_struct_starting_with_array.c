// A struct whose first member is an array, nested in another struct: a pointer to
// the inner struct (&o.in) has the address of its array (&o.in.dims[0]). One helper
// given &o.in copies a float buffer into a heap block it keeps in the inner struct
// (memcpy(n * 4)); the copy's element type shows only where another helper, given
// &o, reads that block by index. Taking &o.in for a pointer to its dims array hid
// the fields after the array from the first helper, and the copy had no type (what
// broke Enzyme's eigentensorreal.cpp: a TensorEvaluator copying its kernel).
// Reference: analytic, f = x0 * sum_i (i mod 4 + 1) k_i^2.
// tol: rel=1e-5 abs=1e-6
// grads: 6
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
float __enzyme_autodiff(void *, ...);

struct inner { long dims[4]; float *kernel; long n; };
struct outer { const float *x; struct inner in; };

__attribute__((noinline)) static void load_kernel(struct inner *in, const float *k, long n) {
    for (int d = 0; d < 4; d++) in->dims[d] = d + 1;
    in->n = n;
    in->kernel = malloc(n * sizeof(float));
    memcpy(in->kernel, k, n * sizeof(float));
}

__attribute__((noinline)) static float apply(const struct outer *o) {
    const struct inner *in = &o->in;
    float s = 0;
    for (long i = 0; i < in->n; i++) s += (float)(i % 4 + 1) * in->kernel[i] * in->kernel[i];
    return s;
}

float loss(const float *x, const float *k, long n) {
    struct outer o;
    o.x = x;
    load_kernel(&o.in, k, n);
    float s = o.x[0] * apply(&o);
    free(o.in.kernel);
    return s;
}

int main(void) {
    float x[1] = {1.5f}, dx[1] = {0};
    float k[5] = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f}, dk[5] = {0};
    __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_dup, k, dk, enzyme_const, 5L);
    double sum = 0;
    for (int i = 0; i < 5; i++) {
        printf("grad dk[%d] %.17g %.17g\n", i, (double)dk[i], 2.0 * x[0] * (i % 4 + 1) * k[i]);
        sum += (i % 4 + 1) * (double)k[i] * k[i];
    }
    printf("grad dx %.17g %.17g\n", (double)dx[0], sum);
    return 0;
}
