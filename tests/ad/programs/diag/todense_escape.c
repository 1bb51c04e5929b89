// Diagnostic: a pointer of an __enzyme_todense view handed to a function enzc cannot
// rewrite (printf, external): its accesses could not become calls of the view's load
// and store functions, so it is a located error, never a silently dense read.
#include <stdint.h>
#include <stdio.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
double *__enzyme_todense(void *, void *, ...);

static double scaled_load(int64_t offset, double *v) { return 2.0 * v[offset / 8]; }
static void scaled_store(double x, int64_t offset, double *v) { v[offset / 8] = 0.5 * x; }

static double f(double *v) {
    double *x = __enzyme_todense((void *)scaled_load, (void *)scaled_store, v);
    printf("%p\n", (void *)x); /* DIAG-LINE */
    return x[0] * x[1];
}

int main(void) {
    double v[2] = {1.0, 2.0}, dv[2] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, v, dv);
    printf("%g %g\n", dv[0], dv[1]);
    return 0;
}
