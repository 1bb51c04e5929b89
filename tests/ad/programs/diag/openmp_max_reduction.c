// Diagnostic: a max reduction in a parallel loop. Its combine (`shared =
// max(shared, mine)` under the runtime's lock) runs backwards in whatever order
// the threads take the lock, so its adjoint would go to the wrong thread's value:
// a located error, never a gradient that depends on thread timing.
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double peak(const double *x, int n) {
    double m = -INFINITY;
#pragma omp parallel for reduction(max : m) /* DIAG-LINE */
    for (int i = 0; i < n; i++)
        m = fmax(m, x[i] * x[i]);
    return m;
}

int main(void) {
    double x[4] = {1, -3, 2, 0.5}, dx[4] = {0};
    __enzyme_autodiff((void *)peak, x, dx, 4);
    printf("%g\n", dx[1]);
    return 0;
}
