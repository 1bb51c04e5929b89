// A global written inside the differentiated function with an active value but
// registered inactive (__enzyme_inactive_global_*): a debugging "last input" record
// needs no shadow, and the gradient is unaffected. Without the registration and with
// --enzc-no-auto-shadow this program must be rejected at compile time
// (tests/ad/test_gradients_diagnostics.py).
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double last_input;
long calls;
#ifndef NO_INACTIVE_MARK
void *__enzyme_inactive_global_last = (void *)&last_input;
#endif

double f(double x) {
    last_input = x; /* DIAG-LINE: an error here without the registration */
    calls++;
    return x * x * sin(x);
}

int main(void) {
    const double xs[] = {0.5, 1.7, -2.2};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        double d = __enzyme_autodiff((void *)f, x);
        printf("grad f@%g %.17g %.17g\n", x, d, 2 * x * sin(x) + x * x * cos(x));
    }
    return 0;
}
