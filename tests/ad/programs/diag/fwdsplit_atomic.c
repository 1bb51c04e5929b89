// Diagnostic: __enzyme_fwdsplit with a tape of a function with an atomic
// read-modify-write. The replay would have to repeat it (a second increment) or take
// its result from the tape, which enzc does not do yet: a located error.
#include <stdio.h>

void *__enzyme_augmentfwd(void *, ...);
double __enzyme_fwdsplit(void *, ...);

int counter;

double count_and_square(double *x) {
    __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED); /* DIAG-LINE */
    return x[0] * x[0];
}

int main(void) {
    double x[1] = {1.5}, dx[1] = {1.0};
    void *tape = __enzyme_augmentfwd((void *)count_and_square, x, dx);
    printf("%g\n", __enzyme_fwdsplit((void *)count_and_square, x, dx, tape));
    return 0;
}
