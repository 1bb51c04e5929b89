// Diagnostic: an OpenMP task inside a parallel region of the differentiated
// function. Its data travels through a runtime task structure and its body runs
// when the runtime decides: the derivative does not reverse that, so enzcc stops
// at the task (parallel loops, reductions, critical and atomic are supported).
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double sum_squares(const double *x, int n) {
    double s = 0;
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < n; i++) {
#pragma omp task shared(s) /* DIAG-LINE */
        {
#pragma omp atomic
            s += x[i] * x[i];
        }
    }
    return s;
}

int main(void) {
    double x[4] = {1, 2, 3, 4}, dx[4] = {0};
    __enzyme_autodiff((void *)sum_squares, x, dx, 4);
    printf("%g\n", dx[0]);
    return 0;
}
