// Diagnostic: LAPACK's dlascl_ scales A by cto / cfrom; its rule differentiates A only
// (as Enzyme's), so an active scale factor must be a located error, not a zero derivative.
void dlascl_(const char *, const int *, const int *, const double *, const double *, const int *,
             const int *, double *, const int *, int *);
void __enzyme_autodiff(void *, ...);

double scaled(double *A, double to) {
    const int n = 2, zero = 0;
    const double from = 1.0;
    int info;
    dlascl_("G", &zero, &zero, &from, &to, &n, &n, A, &n, &info); /* DIAG-LINE */
    return A[0] + A[3];
}

int main(void) {
    double A[4] = {4, 1, 1, 3}, dA[4] = {0};
    double dto = ((double (*)(void *, ...))__enzyme_autodiff)((void *)scaled, A, dA, 2.0);
    return (int)(dA[0] + dto);
}
