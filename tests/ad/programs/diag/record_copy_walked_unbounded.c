// Diagnostic: records `{ double m[4]; double w; int n; const double *p; }` copied
// into an array of them, then each one's `m` read at run-time indices up to k from
// a pointer that steps over the records. Without TBAA (-fno-strict-aliasing) nothing
// bounds that walk, so type analysis folds the int and the pointer into the doubles:
// the record copy's types conflict. The copy's adjoint used to take the whole record
// for doubles, because the destination array was only ever stored doubles directly;
// it added shadow pointer bits as doubles, and the derivative crashed or hung. The
// declared record type (an int and a pointer in it) now keeps that guess away: a
// located error. (With the walk bounded by a counted loop it differentiates:
// randprog/records_walked_by_shifts.c.)
#include <math.h>
#include <stdio.h>

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

struct R { double m[4]; double w; int n; const double *p; };

void fn(const double *x, double *y, int k) {
    double b2[4] = {x[0], x[0] * 2, x[0] * 3, 1};
    struct R r;
    r.n = 2;
    r.p = b2;
    r.w = sin(x[0]);
    for (int i = 0; i < 4; i++) r.m[i] = x[0] * i;
    struct R ra[2];
    for (int j = 0; j < 2; j++) {
        ra[j] = r; /* DIAG-LINE */
        ra[j].m[j] *= 1.5;
    }
    double acc = 0.0;
    for (int j = 0; j < 2; j++) {
        for (int i = 0; i < k; i++) acc += ra[j].m[i] * ra[j].p[i];
        acc += ra[j].w * ra[j].n;
    }
    y[0] = acc;
}

int main(void) {
    double x[1] = {0.7}, dx[1] = {0}, y[1], dy[1] = {1};
    __enzyme_autodiff((void *)fn, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, 4);
    printf("%g\n", dx[0]);
    return 0;
}
