// A GMM-like objective (ADBench's shape, scalar-variance 1-D version): noinline
// log-sum-exp with the max trick (data-dependent argmax), over data points.
// Reference: central differences of the primal, h = 1e-6 relative.
// tol: rel=1e-6 abs=1e-9
// grads: 9
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { K = 3, NPTS = 7 };

__attribute__((noinline)) double logsumexp(const double *v, int n) {
    double m = v[0];
    for (int i = 1; i < n; i++) if (v[i] > m) m = v[i];
    double s = 0;
    for (int i = 0; i < n; i++) s += exp(v[i] - m);
    return m + log(s);
}

/* params: alphas[K], means[K], log_sigmas[K] */
double gmm(const double *p, const double *xs, int npts) {
    const double *alpha = p, *mu = p + K, *ls = p + 2 * K;
    double total = 0, t[K];
    for (int n = 0; n < npts; n++) {
        for (int k = 0; k < K; k++) {
            double z = (xs[n] - mu[k]) * exp(-ls[k]);
            t[k] = alpha[k] - ls[k] - 0.5 * z * z;
        }
        total += logsumexp(t, K);
    }
    return total - npts * logsumexp(alpha, K);
}

int main(void) {
    double p[3 * K] = {0.1, -0.3, 0.5, -1.0, 0.2, 1.5, 0.0, -0.4, 0.3}, dp[3 * K] = {0};
    double xs[NPTS];
    for (int i = 0; i < NPTS; i++) xs[i] = -1.5 + 0.5 * i;
    __enzyme_autodiff((void *)gmm, enzyme_dup, p, dp, enzyme_const, xs, enzyme_const, NPTS);
    for (int i = 0; i < 3 * K; i++) {
        double save = p[i], h = 1e-6 * fmax(1.0, fabs(save));
        p[i] = save + h;
        double fp = gmm(p, xs, NPTS);
        p[i] = save - h;
        double fm = gmm(p, xs, NPTS);
        p[i] = save;
        printf("grad dp[%d] %.17g %.17g\n", i, dp[i], (fp - fm) / (2 * h));
    }
    return 0;
}
