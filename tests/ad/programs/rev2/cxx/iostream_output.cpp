// Printing active values with std::cout / std::cerr inside the differentiated
// function (operator<< of double, strings, endl): output carries no derivative.
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <cmath>
#include <cstdio>
#include <iostream>

extern "C" double __enzyme_autodiff(void *, ...);

double energy(double x) {
    double e = x * x * std::sin(x);
    std::cout << "x = " << x << ", e = " << e << std::endl;
    std::cerr << "step " << 1 << '\n' << std::flush;
    return e;
}

int main() {
    const double xs[] = {0.5, 1.7, -2.2};
    for (double x : xs) {
        double d = __enzyme_autodiff((void *)energy, x);
        std::printf("grad energy@%g %.17g %.17g\n", x, d, 2 * x * std::sin(x) + x * x * std::cos(x));
    }
    return 0;
}
