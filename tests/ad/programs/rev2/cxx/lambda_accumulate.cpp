// Lambdas with captures passed to standard algorithms (std::transform,
// std::accumulate, std::inner_product) over raw arrays.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double f(const double *x, double *work, int n, double scale) {
    std::transform(x, x + n, work, [scale](double v) { return std::tanh(scale * v); });
    double sq = std::inner_product(work, work + n, work, 0.0);
    return std::accumulate(x, x + n, sq, [](double acc, double v) { return acc + 0.1 * v * v; });
}

int main() {
    const int n = 6;
    double x[n], dx[n] = {0}, work[n], dwork[n] = {0}, s = 0.8;
    for (int i = 0; i < n; i++) x[i] = 0.25 * i - 0.6;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, work, dwork, enzyme_const, n,
                      enzyme_const, s);
    for (int i = 0; i < n; i++) {
        double t = std::tanh(s * x[i]);
        std::printf("grad dx[%d] %.17g %.17g\n", i, dx[i], 2 * t * (1 - t * t) * s + 0.2 * x[i]);
    }
    return 0;
}
