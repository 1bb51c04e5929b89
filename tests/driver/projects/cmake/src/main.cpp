#include <cstdio>
#include <vector>
#include "poly.h"

template <typename T> struct Poly {
    std::vector<T> coef;
    T operator()(T x) const { return poly_eval(coef.data(), int(coef.size()) - 1, x); }
};

int main() {
    Poly<double> p{{1.0, -2.0, 0.5, 3.0}};
    std::printf("p(1.5)=%.6f\n", p(1.5));
    return 0;
}
