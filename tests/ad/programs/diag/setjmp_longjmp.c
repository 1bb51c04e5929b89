// Diagnostic: setjmp/longjmp in differentiated code. A longjmp out of a derivative
// skips the release of its tape (a leak) and its reverse pass; one back into it
// reruns part of the forward pass on a tape already written. The build must stop.
#include <setjmp.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
static jmp_buf on_overflow;

__attribute__((noinline)) static double checked_square(double x) {
    if (x > 1e100)
        longjmp(on_overflow, 1);
    return x * x;
}

double f(double x) {
    if (setjmp(on_overflow)) /* DIAG-LINE */
        return 0;
    return checked_square(x) * x;
}

int main(void) {
    printf("%g\n", __enzyme_autodiff((void *)f, 1.5));
    return 0;
}
