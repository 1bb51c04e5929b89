// __enzyme_todense in C++ with exceptions on: the view goes to functions called with
// `invoke` (a std::vector is alive, so a throw must run its destructor), once in
// code that is not differentiated (a plain sum through the view) and once inside the
// differentiated function. Reference: the same sums and gradient written directly on
// the storage (value and derivative of sum_k w_k s[perm[k]]^2).
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <vector>

extern int enzyme_dup, enzyme_const;
extern "C" double __enzyme_autodiff(void *, ...);
extern "C" double *__enzyme_todense(void *, void *, ...);

enum { N = 4 };

/* x[k] = s[perm[k]]: a permuted view of the storage */
static double perm_load(int64_t offset, double *s, const int *perm) { return s[perm[offset / 8]]; }
static void perm_store(double v, int64_t offset, double *s, const int *perm) { s[perm[offset / 8]] = v; }

__attribute__((noinline)) static double weighted_squares(const double *x, const std::vector<double> &w) {
    if (w.size() != N)
        throw std::length_error("weights");
    double t = 0.0;
    for (int k = 0; k < N; k++)
        t += w[k] * x[k] * x[k];
    return t;
}

static double objective(double *s, const int *perm) {
    std::vector<double> w = {1.0, 0.5, 2.0, 0.25};
    double *x = __enzyme_todense((void *)perm_load, (void *)perm_store, s, perm);
    return weighted_squares(x, w);
}

int main() {
    const int perm[N] = {2, 0, 3, 1};
    double s[N] = {0.3, -1.4, 2.2, 0.9}, ds[N] = {0};
    const double w[N] = {1.0, 0.5, 2.0, 0.25};
    double direct = 0.0;
    for (int k = 0; k < N; k++)
        direct += w[k] * s[perm[k]] * s[perm[k]];
    std::vector<double> weights(w, w + N);
    double *x = __enzyme_todense((void *)perm_load, (void *)perm_store, s, perm);
    double through_view = 0.0;
    try {
        through_view = weighted_squares(x, weights);
    } catch (const std::exception &) {
        return 1;
    }
    std::printf("grad value %.17g %.17g\n", through_view, direct);
    std::printf("grad objective %.17g %.17g\n", objective(s, perm), direct);
    __enzyme_autodiff((void *)objective, enzyme_dup, s, ds, enzyme_const, perm);
    for (int k = 0; k < N; k++)
        std::printf("grad s[%d] %.17g %.17g\n", perm[k], ds[perm[k]], 2 * w[k] * s[perm[k]]);
    return 0;
}
