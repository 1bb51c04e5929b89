/* Hand-written gradient of gmm_objective.
 *
 * Per point i and component c, with xc = x_i - mu_c, z = Q_c xc and
 * r_c = softmax_c(beta_ic) (the posterior responsibility):
 *   d/d alpha_c  +=  r_c                    (and -n softmax(alpha)_c once)
 *   d/d mu_c     +=  r_c Q_c^T z
 *   d/d q_cj     +=  r_c (1 - z_j exp(q_cj) xc_j)
 *   d/d L_c[r,s] +=  -r_c z_r xc_s          (r > s)
 * plus the Wishart prior: gamma^2 exp(q)^2 - m on q, gamma^2 L on L. */
#include "gmm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double gmm_manual_logsumexp(const double *v, int n)
{
    double mx = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] > mx)
            mx = v[i];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += exp(v[i] - mx);
    return mx + log(s);
}

void gmm_gradient(int d, int k, int n, const double *alphas, const double *means,
                  const double *icf, const double *x, double wishart_gamma, int wishart_m,
                  double *d_alphas, double *d_means, double *d_icf)
{
    int icf_size = d + d * (d - 1) / 2;
    double *qdiag = malloc(sizeof(double) * k * d);
    double *qsum = malloc(sizeof(double) * k);
    double *xc = malloc(sizeof(double) * k * d);
    double *z = malloc(sizeof(double) * k * d);
    double *beta = malloc(sizeof(double) * k);

    memset(d_alphas, 0, sizeof(double) * k);
    memset(d_means, 0, sizeof(double) * k * d);
    memset(d_icf, 0, sizeof(double) * k * icf_size);
    for (int c = 0; c < k; c++) {
        qsum[c] = 0;
        for (int j = 0; j < d; j++) {
            qsum[c] += icf[c * icf_size + j];
            qdiag[c * d + j] = exp(icf[c * icf_size + j]);
        }
    }

    for (int i = 0; i < n; i++) {
        for (int c = 0; c < k; c++) {
            const double *l = &icf[c * icf_size + d];
            double *xcc = &xc[c * d], *zc = &z[c * d];
            for (int j = 0; j < d; j++) {
                xcc[j] = x[i * d + j] - means[c * d + j];
                zc[j] = 0;
            }
            int idx = 0;
            for (int col = 0; col < d; col++) {
                zc[col] += qdiag[c * d + col] * xcc[col];
                for (int row = col + 1; row < d; row++)
                    zc[row] += l[idx++] * xcc[col];
            }
            double sq = 0;
            for (int j = 0; j < d; j++)
                sq += zc[j] * zc[j];
            beta[c] = alphas[c] + qsum[c] - 0.5 * sq;
        }
        double lse = gmm_manual_logsumexp(beta, k);
        for (int c = 0; c < k; c++) {
            double r = exp(beta[c] - lse);
            const double *l = &icf[c * icf_size + d];
            const double *xcc = &xc[c * d], *zc = &z[c * d];
            double *dq = &d_icf[c * icf_size], *dl = dq + d;
            d_alphas[c] += r;
            int idx = 0;
            for (int col = 0; col < d; col++) {
                double qtz = qdiag[c * d + col] * zc[col]; /* (Q^T z)_col */
                dq[col] += r * (1 - zc[col] * qdiag[c * d + col] * xcc[col]);
                for (int row = col + 1; row < d; row++, idx++) {
                    qtz += l[idx] * zc[row];
                    dl[idx] -= r * zc[row] * xcc[col];
                }
                d_means[c * d + col] += r * qtz;
            }
        }
    }

    double lse_alpha = gmm_manual_logsumexp(alphas, k);
    double g2 = wishart_gamma * wishart_gamma;
    for (int c = 0; c < k; c++) {
        d_alphas[c] -= n * exp(alphas[c] - lse_alpha);
        for (int j = 0; j < d; j++)
            d_icf[c * icf_size + j] += g2 * qdiag[c * d + j] * qdiag[c * d + j] - wishart_m;
        for (int j = d; j < icf_size; j++)
            d_icf[c * icf_size + j] += g2 * icf[c * icf_size + j];
    }

    free(qdiag);
    free(qsum);
    free(xc);
    free(z);
    free(beta);
}
