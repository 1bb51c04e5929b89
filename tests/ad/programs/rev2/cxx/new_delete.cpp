// new[] / delete[] and new / delete of an object inside the differentiated function
// (built with exceptions enabled, the C++ default).
// tol: rel=1e-12 abs=1e-14
// grads: 5
#include <cmath>
#include <cstdio>

extern "C" {
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
}

struct Accumulator {
    double total = 0;
    double weight = 1;
    void add(double v) {
        total += weight * v;
        weight *= 0.5;
    }
};

double f(const double *x, int n) {
    double *sq = new double[n];
    for (int i = 0; i < n; i++) sq[i] = x[i] * std::exp(x[i]);
    Accumulator *acc = new Accumulator();
    for (int i = 0; i < n; i++) acc->add(sq[i]);
    double r = acc->total;
    delete acc;
    delete[] sq;
    return r;
}

int main() {
    const int n = 5;
    double x[n], dx[n] = {0};
    for (int i = 0; i < n; i++) x[i] = 0.3 * i - 0.4;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
    double w = 1;
    for (int i = 0; i < n; i++) {
        std::printf("grad dx[%d] %.17g %.17g\n", i, dx[i], w * (1 + x[i]) * std::exp(x[i]));
        w *= 0.5;
    }
    return 0;
}
