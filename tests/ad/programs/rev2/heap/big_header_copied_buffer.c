// A struct whose integer header is bigger than a type tree once held (40 longs
// set one by one, 320 bytes: one tree entry per integer byte) carries a float
// buffer that one helper copies from the input with memcpy(n * sizeof(float)) and
// another reads by index. The copy's element type shows only at the indexed reads,
// reached through the caller's struct; with 128 entries per tree the header crowded
// the reads' facts out and the copy was a "cannot deduce the type" error (as in
// Enzyme's eigentensorreal.cpp: a TensorEvaluator copying its kernel).
// Reference: analytic, f = sum_i w_i k_i^2 with w_i = h_(i % 3) + 1 = i % 3 + 1.
// tol: rel=1e-5 abs=1e-6
// grads: 6
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
float __enzyme_autodiff(void *, ...);

struct evaluator {
    long h0; long h1; long h2; long h3; long h4; long h5; long h6; long h7; long h8; long h9;
    long h10; long h11; long h12; long h13; long h14; long h15; long h16; long h17; long h18; long h19;
    long h20; long h21; long h22; long h23; long h24; long h25; long h26; long h27; long h28; long h29;
    long h30; long h31; long h32; long h33; long h34; long h35; long h36; long h37; long h38; long h39;
    long n;
    float *kernel;
};

__attribute__((noinline)) static void load_kernel(struct evaluator *e, const float *k, long n) {
    e->h0 = 0; e->h1 = 1; e->h2 = 2; e->h3 = 0; e->h4 = 1; e->h5 = 2; e->h6 = 0; e->h7 = 1; e->h8 = 2; e->h9 = 0;
    e->h10 = 1; e->h11 = 2; e->h12 = 0; e->h13 = 1; e->h14 = 2; e->h15 = 0; e->h16 = 1; e->h17 = 2; e->h18 = 0; e->h19 = 1;
    e->h20 = 2; e->h21 = 0; e->h22 = 1; e->h23 = 2; e->h24 = 0; e->h25 = 1; e->h26 = 2; e->h27 = 0; e->h28 = 1; e->h29 = 2;
    e->h30 = 0; e->h31 = 1; e->h32 = 2; e->h33 = 0; e->h34 = 1; e->h35 = 2; e->h36 = 0; e->h37 = 1; e->h38 = 2; e->h39 = 0;
    e->n = n;
    e->kernel = malloc(n * sizeof(float));
    memcpy(e->kernel, k, n * sizeof(float));
}

__attribute__((noinline)) static float apply(const struct evaluator *e) {
    float s = 0;
    for (long i = 0; i < e->n; i++) {
        long w = i % 3 == 0 ? e->h0 : i % 3 == 1 ? e->h1 : e->h2;
        s += (float)(w + 1) * e->kernel[i] * e->kernel[i];
    }
    return s;
}

float loss(const float *k, long n) {
    struct evaluator e;
    load_kernel(&e, k, n);
    float s = apply(&e);
    free(e.kernel);
    return s;
}

int main(void) {
    float k[6] = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f}, dk[6] = {0};
    __enzyme_autodiff((void *)loss, enzyme_dup, k, dk, enzyme_const, 6L);
    for (int i = 0; i < 6; i++)
        printf("grad dk[%d] %.17g %.17g\n", i, (double)dk[i], 2.0 * (i % 3 + 1) * k[i]);
    return 0;
}
