// Arrays of records that hold a pointer to active data beside doubles, copied in
// bulk: a memcpy of n records, then memmoves shifting them one place up and one
// place down (both directions of an overlapping move). The forward pass must move
// each record's shadow pointer with it (the derivative later reads *src through
// it); the reverse pass moves the doubles' adjoints back. This was "cannot copy an
// array of records holding both pointers and floating-point values"; ClangEnzyme-19
// compiles the memcpy alone without a word and the program then crashes.
// Reference: analytic.
//   copied:  f = sum_i (0.5 i) a_i^2 (each record: w = 0.5 i, src = &a[i], k = i)
//   shifted: records r_0 .. r_{n-1}; after `up` r_0 r_0 r_1 .. r_{n-2}, after `down`
//            r_0 r_1 .. r_{n-2} r_{n-2}: f = sum_j w_j * (*src_j) * x_j, x_j = a_j too
// tol: rel=1e-12 abs=1e-12
// grads: 10
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

struct Node { double w; const double *src; int k; double x; };

__attribute__((noinline)) double copied(const double *a, int n) {
    struct Node *v = malloc(n * sizeof *v);
    for (int i = 0; i < n; i++) {
        v[i].w = 0.5 * i;
        v[i].src = a + i;
        v[i].k = i;
        v[i].x = 1.0;
    }
    struct Node *c = malloc(n * sizeof *c);
    memcpy(c, v, n * sizeof *c);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += c[i].w * *c[i].src * *c[i].src * c[i].x;
    free(v);
    free(c);
    return s;
}

__attribute__((noinline)) double shifted(const double *a, int n) {
    struct Node *v = malloc(n * sizeof *v);
    for (int i = 0; i < n; i++) {
        v[i].w = 1.0 + i;
        v[i].src = a + i;
        v[i].k = i;
        v[i].x = a[i];
    }
    memmove(v + 1, v, (n - 1) * sizeof *v);  /* up: r0 r0 r1 ... r(n-2) */
    memmove(v, v + 1, (n - 1) * sizeof *v);  /* down: r0 r1 ... r(n-2) r(n-2) */
    double s = 0;
    for (int j = 0; j < n; j++)
        s += v[j].w * *v[j].src * v[j].x;
    free(v);
    return s;
}

int main(void) {
    enum { n = 5 };
    double a[n] = {0.5, -1.5, 2.0, 0.25, 1.25}, da[n] = {0}, db[n] = {0};
    __enzyme_autodiff((void *)copied, enzyme_dup, a, da, enzyme_const, n);
    for (int i = 0; i < n; i++)
        printf("grad copied[%d] %.17g %.17g\n", i, da[i], 2 * 0.5 * i * a[i]);
    __enzyme_autodiff((void *)shifted, enzyme_dup, a, db, enzyme_const, n);
    for (int i = 0; i < n; i++) {
        /* records 0 .. n-2 appear once each, record n-2 twice: d/da_i (w_i a_i^2) = 2 w_i a_i */
        double times = i == n - 1 ? 0 : (i == n - 2 ? 2 : 1);
        printf("grad shifted[%d] %.17g %.17g\n", i, db[i], times * 2 * (1.0 + i) * a[i]);
    }
    return 0;
}
