/* GMM objective, written as a plain C function of arrays (as a user would,
 * with heap temporaries) so the AD tools differentiate it unmodified. */
#include "gmm.h"

#include <math.h>
#include <stdlib.h>

/* Not M_PI: that needs XSI/GNU feature macros, and a single-file build may
 * have asked for strict POSIX first. */
#define GMM_PI 3.14159265358979323846

/* log of the multivariate gamma function Gamma_d(a). */
static double gmm_log_gamma_d(double a, int d)
{
    double r = 0.25 * d * (d - 1) * log(GMM_PI);
    for (int j = 1; j <= d; j++)
        r += lgamma(a + 0.5 * (1 - j));
    return r;
}

static double gmm_logsumexp(const double *v, int n)
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

void gmm_objective(int d, int k, int n, const double *alphas, const double *means,
                   const double *icf, const double *x, double wishart_gamma, int wishart_m,
                   double *err)
{
    int icf_size = d + d * (d - 1) / 2;
    double *qdiag = malloc(sizeof(double) * k * d); /* exp(q_k) */
    double *qsum = malloc(sizeof(double) * k);      /* sum_j q_kj */
    double *xc = malloc(sizeof(double) * d);
    double *z = malloc(sizeof(double) * d);
    double *beta = malloc(sizeof(double) * k);

    for (int c = 0; c < k; c++) {
        qsum[c] = 0;
        for (int j = 0; j < d; j++) {
            qsum[c] += icf[c * icf_size + j];
            qdiag[c * d + j] = exp(icf[c * icf_size + j]);
        }
    }

    double data_term = 0;
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < k; c++) {
            const double *l = &icf[c * icf_size + d];
            for (int j = 0; j < d; j++) {
                xc[j] = x[i * d + j] - means[c * d + j];
                z[j] = 0;
            }
            /* z = Q_c * xc, walking the lower triangle column by column */
            int idx = 0;
            for (int col = 0; col < d; col++) {
                z[col] += qdiag[c * d + col] * xc[col];
                for (int row = col + 1; row < d; row++)
                    z[row] += l[idx++] * xc[col];
            }
            double sq = 0;
            for (int j = 0; j < d; j++)
                sq += z[j] * z[j];
            beta[c] = alphas[c] + qsum[c] - 0.5 * sq;
        }
        data_term += gmm_logsumexp(beta, k);
    }

    double prior = 0;
    for (int c = 0; c < k; c++) {
        double frob = 0;
        for (int j = 0; j < d; j++)
            frob += qdiag[c * d + j] * qdiag[c * d + j];
        for (int j = d; j < icf_size; j++)
            frob += icf[c * icf_size + j] * icf[c * icf_size + j];
        prior += 0.5 * wishart_gamma * wishart_gamma * frob - wishart_m * qsum[c];
    }

    int dof = d + wishart_m + 1;
    double wishart_c = dof * d * (log(wishart_gamma) - 0.5 * log(2.0)) -
                       gmm_log_gamma_d(0.5 * dof, d);
    *err = -0.5 * n * d * log(2 * GMM_PI) + data_term - n * gmm_logsumexp(alphas, k) + prior -
           k * wishart_c;

    free(qdiag);
    free(qsum);
    free(xc);
    free(z);
    free(beta);
}
