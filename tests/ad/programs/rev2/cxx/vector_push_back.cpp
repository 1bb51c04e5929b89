// std::vector<double> grown by push_back inside the differentiated function (its
// storage is reallocated and copied while holding active values), then reduced.
// tol: rel=1e-12 abs=1e-14
// grads: 7
// flags: -fno-exceptions
#include <cmath>
#include <cstdio>
#include <vector>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double f(const double *x, int n) {
    std::vector<double> v;
    for (int i = 0; i < n; i++) {
        v.push_back(x[i] * x[i]);
        v.push_back(std::sin(x[i]));
    }
    double s = 0;
    for (std::size_t i = 0; i < v.size(); i++) s += v[i] * (double)(i + 1);
    return s;
}

int main() {
    const int n = 7;
    double x[n], dx[n] = {0};
    for (int i = 0; i < n; i++) x[i] = 0.2 * i - 0.5;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
    for (int i = 0; i < n; i++) /* x_i^2 at index 2i (weight 2i+1), sin at 2i+1 (2i+2) */
        std::printf("grad dx[%d] %.17g %.17g\n", i, dx[i],
                    (2 * i + 1) * 2 * x[i] + (2 * i + 2) * std::cos(x[i]));
    return 0;
}
