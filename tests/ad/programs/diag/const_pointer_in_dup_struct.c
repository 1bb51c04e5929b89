// Diagnostic: a pointer passed enzyme_const is stored (by a function that is not
// inlined) into a struct passed enzyme_dup, and floats are then read through the
// struct. The struct's shadow gets no pointer for that field, so the reverse pass
// would write derivatives through whatever the shadow struct held (it crashed):
// a compile-time error instead.
#include <stdio.h>

extern int enzyme_const, enzyme_dup;
void __enzyme_autodiff(void *, ...);

struct Params { double *weights; };

__attribute__((noinline)) void attach(struct Params *p, double *w) {
    p->weights = w; /* DIAG-LINE */
}

double score(struct Params *p, double *w, const double *x) {
    attach(p, w);
    return p->weights[0] * x[0] + p->weights[1] * x[1];
}

int main(void) {
    double w[2] = {0.5, -1.0}, x[2] = {2.0, 3.0}, dx[2] = {0};
    struct Params p, dp = {0};
    __enzyme_autodiff((void *)score, enzyme_dup, &p, &dp, enzyme_const, w, enzyme_dup, x, dx);
    printf("%g %g\n", dx[0], dx[1]);
    return 0;
}
