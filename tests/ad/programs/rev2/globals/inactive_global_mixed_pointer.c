// A pointer that is either a shadowed argument or a global registered inactive
// (Enzyme's inactiveglob.cpp): `select cond, ptr %c, ptr @scale_state`. Stores through
// it into the global carry no derivative (its shadow is scratch memory private to
// the call); through the argument they do. In a noinline callee, so the scratch
// lives in the split derivative's tape. The global's value is kept.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

static double scale_state;
void *__enzyme_inactive_global_scale = (void *)&scale_state;

__attribute__((noinline)) static void update(int to_global, double a, double *c) {
    if (to_global)
        scale_state *= a;
    else
        *c *= a;
}

double f(int to_global, double a) {
    double dat = a;
    update(to_global, a, &dat);
    return dat * a;
}

int main(void) {
    for (int to_global = 0; to_global < 2; to_global++) {
        scale_state = 5.5;
        double a = 3.0;
        double d = __enzyme_autodiff((void *)f, to_global, a);
        double expect = to_global ? 2 * a : 3 * a * a;  /* a*a or a*a*a */
        printf("grad f[%d] %.17g %.17g\n", to_global, d, expect);
        printf("grad state[%d] %.17g %.17g\n", to_global, scale_state, to_global ? 5.5 * a : 5.5);
    }
    return 0;
}
