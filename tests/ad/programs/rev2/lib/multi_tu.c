// Gradients across translation units: the differentiated function calls functions
// defined (non-inline, external) in another source file of the same program.
// tol: rel=1e-12 abs=1e-14
// grads: 4
// sources: multi_tu_helpers.c
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double activation(double x);               /* multi_tu_helpers.c */
void affine(const double *w, const double *x, double *y, int n); /* y = w .* x + 1 */

double net(const double *w, const double *x, int n) {
    double y[8];
    affine(w, x, y, n);
    double s = 0;
    for (int i = 0; i < n; i++) s += activation(y[i]);
    return s;
}

int main(void) {
    enum { N = 4 };
    double w[N] = {0.5, -1.0, 2.0, 0.1}, x[N] = {1.0, 0.3, -0.2, 4.0}, dw[N] = {0};
    __enzyme_autodiff((void *)net, enzyme_dup, w, dw, enzyme_const, x, enzyme_const, N);
    for (int i = 0; i < N; i++) {
        double y = w[i] * x[i] + 1, s = 1 / (1 + exp(-y));
        printf("grad dw[%d] %.17g %.17g\n", i, dw[i], s * (1 - s) * x[i]);
    }
    return 0;
}
