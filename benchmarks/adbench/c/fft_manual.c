/* Hand-written FFT-loss gradient.  For real L of complex x = a + ib,
 * dL/da + i dL/db = F^H w with w_k = 2 X_k / (n (1 + |X_k|^2)), and the
 * adjoint transform is F^H w = conj(F conj(w)): two forward FFTs in all. */
#include "fft.h"

#include <stdlib.h>

void fft_gradient(const double *x, int n, double *d_x)
{
    double *X = malloc(sizeof(double) * 2 * n);
    fft_forward(x, X, n);
    for (int k = 0; k < n; k++) {
        double scale = 2 / (n * (1 + X[2 * k] * X[2 * k] + X[2 * k + 1] * X[2 * k + 1]));
        X[2 * k] *= scale;
        X[2 * k + 1] *= -scale; /* conjugate */
    }
    fft_forward(X, d_x, n);
    for (int k = 0; k < n; k++)
        d_x[2 * k + 1] = -d_x[2 * k + 1];
    free(X);
}
