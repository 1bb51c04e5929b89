// C++ with exceptions: a local object with a destructor makes every `operator new`
// inside std::vector an `invoke` (its unwind edge runs the destructor); the shadow of
// each allocation is made on the normal edge.
// tol: rel=1e-12 abs=1e-14
// grads: 5
#include <cmath>
#include <cstdio>
#include <vector>

extern "C" {
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
}

static int finished;

struct Counter {
    ~Counter() { ++finished; }
};

double f(const double *x, int n) {
    Counter c;
    std::vector<double> v;
    for (int i = 0; i < n; i++) v.push_back(x[i] * x[i]);
    double s = 0;
    for (double e : v) s += std::sin(e);
    return s;
}

int main() {
    const int n = 5;
    double x[n], dx[n] = {0};
    for (int i = 0; i < n; i++) x[i] = 0.4 * i - 0.7;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
    for (int i = 0; i < n; i++)
        std::printf("grad dx[%d] %.17g %.17g\n", i, dx[i], std::cos(x[i] * x[i]) * 2 * x[i]);
    return finished == 1 ? 0 : 3;
}
