// Runtime activity: the differentiated function itself stores a pointer passed
// enzyme_const into a struct passed enzyme_dup (diag/const_pointer_in_dup_struct.c,
// a compile-time error without runtime activity). With the marker the struct's shadow
// gets the const pointer itself, so reads through it carry no derivative: the gradient
// of x is w, and w is untouched. Reverse and forward mode.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <stdio.h>
#include <enzyme/enzyme.h>

struct Params { double *weights; };

__attribute__((noinline)) void attach(struct Params *p, double *w) { p->weights = w; }

double score(struct Params *p, double *w, const double *x) {
    attach(p, w);
    return p->weights[0] * x[0] * x[0] + p->weights[1] * x[1];
}

int main(void) {
    double w[2] = {0.5, -1.0}, x[2] = {2.0, 3.0}, dx[2] = {0};
    struct Params p, dp = {0};
    __enzyme_autodiff((void *)score, enzyme_runtime_activity, enzyme_dup, &p, &dp, enzyme_const, w,
                      enzyme_dup, x, dx);
    printf("grad rev_x0 %.17g %.17g\n", dx[0], 2 * w[0] * x[0]);
    printf("grad rev_x1 %.17g %.17g\n", dx[1], w[1]);
    double t0[2] = {1, 0}, t1[2] = {0, 1};
    struct Params tp = {0};
    double f0 = __enzyme_fwddiff((void *)score, enzyme_runtime_activity, enzyme_dup, &p, &tp, enzyme_const, w,
                                 enzyme_dup, x, t0);
    double f1 = __enzyme_fwddiff((void *)score, enzyme_runtime_activity, enzyme_dup, &p, &tp, enzyme_const, w,
                                 enzyme_dup, x, t1);
    printf("grad fwd_x0 %.17g %.17g\n", f0, 2 * w[0] * x[0]);
    printf("grad fwd_x1 %.17g %.17g\n", f1, w[1]);
    printf("grad w0_unchanged %.17g %.17g\n", w[0], 0.5);
    printf("grad w1_unchanged %.17g %.17g\n", w[1], -1.0);
    return 0;
}
