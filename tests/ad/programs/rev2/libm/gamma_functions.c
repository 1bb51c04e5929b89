// lgamma, tgamma, lgamma_r and lgammaf in differentiated code (a negative binomial
// log-likelihood, the usual place). Their derivatives need the digamma function,
// which libm lacks: the module gets an internal one (`rules/digamma.py`:
// reflection, recurrence to 10, asymptotic series). They were "cannot
// differentiate call to external function 'lgamma'" (ClangEnzyme-19 has no rule for
// lgamma and calls an undefined `digamma` for tgamma). Reverse and forward.
// Reference: central finite differences of the log-likelihood, and digamma's
// known values (psi(1) = -gamma, psi(1/2) = -gamma - 2 ln 2, psi(10), psi(-1/2))
// to 1e-14 relative.
// tol: rel=1e-6 abs=1e-9
// grads: 10
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* negative binomial log-likelihood of counts k with size r = exp(p[0]), mean m = exp(p[1]) */
double loglik(const double *p, const int *k, int n) {
    double r = exp(p[0]), m = exp(p[1]), s = 0;
    for (int i = 0; i < n; i++)
        s += lgamma(k[i] + r) - lgamma(r) - lgamma(k[i] + 1.0) + r * log(r / (r + m)) + k[i] * log(m / (r + m));
    int sign;
    s += lgamma_r(p[2] - 2.5, &sign) * sign + log(fabs(tgamma(p[2]))) * 0.5 + tgamma(p[0] + 1.2);
    s += (double)lgammaf((float)p[2] + 3.0f) * 0.0;  /* float form: compiled and run */
    return s;
}

double lg(double x) { return lgamma(x); }

int main(void) {
    enum { N = 3, K = 5 };
    const int k[K] = {0, 3, 1, 7, 2};
    double p[N] = {0.4, 0.9, 1.3}, dp[N] = {0};
    __enzyme_autodiff((void *)loglik, enzyme_dup, p, dp, enzyme_const, k, enzyme_const, K);
    const double h = 1e-6;
    for (int i = 0; i < N; i++) {
        double a[N], b[N], t[N] = {0};
        memcpy(a, p, sizeof a);
        memcpy(b, p, sizeof b);
        a[i] += h;
        b[i] -= h;
        t[i] = 1;
        double fd = (loglik(a, k, K) - loglik(b, k, K)) / (2 * h);
        printf("grad p%d %.17g %.17g\n", i, dp[i], fd);
        printf("grad fwd_p%d %.17g %.17g\n", i,
               __enzyme_fwddiff((void *)loglik, enzyme_dup, p, t, enzyme_const, k, enzyme_const, K), fd);
    }
    const double euler = 0.57721566490153286061;
    const double at[4] = {1.0, 0.5, 10.0, -0.5};
    const double psi[4] = {-euler, -euler - 2 * 0.69314718055994530942, 2.2517525890667211076,
                           0.036489973978576520559};
    for (int j = 0; j < 4; j++) {
        double d = __enzyme_autodiff((void *)lg, at[j]);
        double rel = fabs(d - psi[j]) / fabs(psi[j]);
        printf("grad psi(%g) %.17g %.17g\n", at[j], rel < 1e-14 ? 1.0 : d, 1.0);
    }
    return 0;
}
