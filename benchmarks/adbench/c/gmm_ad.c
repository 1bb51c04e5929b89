/* GMM gradient by reverse-mode AD of the unmodified gmm_objective, through
 * Enzyme's C interface (built by enzcc, enzcc --enzc-ad-before-opt, or
 * clang with the Enzyme plugin). */
#include "enzyme_api.h"
#include "gmm.h"

#include <string.h>

void gmm_gradient(int d, int k, int n, const double *alphas, const double *means,
                  const double *icf, const double *x, double wishart_gamma, int wishart_m,
                  double *d_alphas, double *d_means, double *d_icf)
{
    int icf_size = d + d * (d - 1) / 2;
    double err = 0, d_err = 1.0;
    memset(d_alphas, 0, sizeof(double) * k);
    memset(d_means, 0, sizeof(double) * k * d);
    memset(d_icf, 0, sizeof(double) * k * icf_size);
    __enzyme_autodiff((void *)gmm_objective, enzyme_const, d, enzyme_const, k, enzyme_const, n,
                      enzyme_dup, alphas, d_alphas, enzyme_dup, means, d_means, enzyme_dup, icf,
                      d_icf, enzyme_const, x, enzyme_const, wishart_gamma, enzyme_const,
                      wishart_m, enzyme_dupnoneed, &err, &d_err);
}
