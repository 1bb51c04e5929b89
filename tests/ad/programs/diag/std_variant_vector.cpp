// Diagnostic: a std::vector of std::variant<double, long, const double *>. Growing the
// vector moves each variant's 8 bytes of storage with one memcpy, and which type
// those bytes hold is the variant's index at run time: a double for one element, an
// integer or a pointer for another. No analysis before run time can choose the
// copy's adjoint, so the build stops at the copy, naming the call it came through
// (ClangEnzyme-19 rejects the program too).
#include <cmath>
#include <cstdio>
#include <variant>
#include <vector>

extern "C" {
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
}

using V = std::variant<double, long, const double *>;

double f(const double *x, int n) {
    std::vector<V> vs;
    for (int i = 0; i < n; i++) {
        if (i % 3 == 0)
            vs.push_back(x[i]); /* DIAG-LINE */
        else if (i % 3 == 1)
            vs.push_back((long)i);
        else
            vs.push_back(&x[i]);
    }
    double s = 0;
    for (const V &v : vs)
        s += std::visit([](auto &&a) -> double {
            using T = std::decay_t<decltype(a)>;
            if constexpr (std::is_same_v<T, double>)
                return a * a;
            else if constexpr (std::is_same_v<T, long>)
                return (double)a;
            else
                return std::sin(*a);
        }, v);
    return s;
}

int main() {
    const int n = 7;
    double x[n] = {0.3, -0.7, 1.1, 0.5, 0.9, -1.3, 0.2}, dx[n] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
    std::printf("%g\n", dx[0]);
    return 0;
}
