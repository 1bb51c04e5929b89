// Diagnostic: an OpenMP parallel loop (built with -fopenmp) inside the
// differentiated function: the runtime's fork call cannot be differentiated, and
// the hint must say what to change (not "write a derivative of __kmpc_fork_call").
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double sum_squares(const double *x, int n) {
    double s = 0;
#pragma omp parallel for reduction(+ : s) /* DIAG-LINE */
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    return s;
}

int main(void) {
    double x[4] = {1, 2, 3, 4}, dx[4] = {0};
    __enzyme_autodiff((void *)sum_squares, x, dx, 4);
    printf("%g\n", dx[0]);
    return 0;
}
