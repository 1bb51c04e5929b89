// Diagnostic: a noinline callee stores an active argument into a global without a
// shadow and the caller reads it back. The call returns nothing and takes no
// pointer, but it must not be skipped as inactive: built with --enzc-no-auto-shadow,
// a compile-time error in the callee saying the global needs a shadow.
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double saved;

__attribute__((noinline)) void save(double v) {
    saved = v * v; /* DIAG-LINE */
}

double f(double x) {
    save(x);
    return saved * x;
}

int main(void) {
    printf("%g\n", __enzyme_autodiff((void *)f, 0.5));
    return 0;
}
