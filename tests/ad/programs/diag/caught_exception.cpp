// Diagnostic: an exception from a differentiated call is caught inside the
// differentiated function, which then returns normally: the reverse pass could not
// undo a callee that stopped half-way, so the build stops at the call with a hint.
#include <stdexcept>
#include <vector>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double energy(const std::vector<double> &x) {
    if (x.size() > 100) throw std::length_error("too many");
    double e = 0;
    for (double v : x) e += v * v * v;
    return e;
}

void total(const double *x, double *out, int n) {
    std::vector<double> v(x, x + n);
    try {
        *out = energy(v); /* DIAG-LINE */
    } catch (const std::exception &) {
        *out = 0;
    }
}

int main() {
    double x[3] = {1, 2, 3}, dx[3] = {0}, out, dout = 1;
    __enzyme_autodiff((void *)total, enzyme_dup, x, dx, enzyme_dup, &out, &dout, enzyme_const, 3);
    return 0;
}
