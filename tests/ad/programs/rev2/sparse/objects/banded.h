// Helper for main.c and banded.c (built by make): their shared declarations.
#include <stdint.h>

/* y = A x for a dense n x n row-major A (banded.c) */
void matvec(const double *a, const double *x, double *y, int n);

/* a tridiagonal matrix stored as three diagonals: the dense view's functions */
double band_load(int64_t offset, double *diag, double *lower, double *upper, int n);
void band_store(double v, int64_t offset, double *diag, double *lower, double *upper, int n);
