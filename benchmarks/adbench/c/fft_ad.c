/* FFT-loss gradient by reverse-mode AD of the unmodified, recursive
 * fft_objective. */
#include "enzyme_api.h"
#include "fft.h"

#include <string.h>

void fft_gradient(const double *x, int n, double *d_x)
{
    double loss = 0, d_loss = 1.0;
    memset(d_x, 0, sizeof(double) * 2 * n);
    __enzyme_autodiff((void *)fft_objective, enzyme_dup, x, d_x, enzyme_const, n,
                      enzyme_dupnoneed, &loss, &d_loss);
}
