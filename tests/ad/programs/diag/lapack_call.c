// A LAPACK routine (here dpotrf_, a Cholesky factorisation) in reverse mode: its rule is
// forward-mode only, so enzcc must stop with a located error naming the routine, not
// differentiate through an opaque call.
void dpotrf_(const char *uplo, const int *n, double *A, const int *lda, int *info);
void __enzyme_autodiff(void *, ...);

double logdet(double *A) {
    const int n = 2;
    int info;
    dpotrf_("L", &n, A, &n, &info); /* DIAG-LINE */
    return A[0] * A[3];
}

int main(void) {
    double A[4] = {4, 1, 1, 3}, dA[4] = {0};
    __enzyme_autodiff((void *)logdet, A, dA);
    return (int)dA[0];
}
