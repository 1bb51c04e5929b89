/* GMM: negative log-likelihood of a Gaussian mixture with a Wishart prior
 * (ADBench's definition; see ../../../docs/benchmarks.md and the data
 * README).  Each component k has log-weight alphas[k], mean means[k*d..],
 * and icf[k*(d + d(d-1)/2)..]: d logs of the diagonal of Q_k, then the
 * strictly lower triangle of Q_k column by column. */
#ifndef GMM_H
#define GMM_H

void gmm_objective(int d, int k, int n, const double *alphas, const double *means,
                   const double *icf, const double *x, double wishart_gamma, int wishart_m,
                   double *err);

/* Gradient of gmm_objective w.r.t. alphas, means and icf; each output is
 * overwritten, not added to. */
void gmm_gradient(int d, int k, int n, const double *alphas, const double *means,
                  const double *icf, const double *x, double wishart_gamma, int wishart_m,
                  double *d_alphas, double *d_means, double *d_icf);

#endif
