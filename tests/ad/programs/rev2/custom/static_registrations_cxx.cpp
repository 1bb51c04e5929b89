// C++ registrations whose names are mangled or discardable: `static`, a namespace-scope
// `const` (internal linkage), an anonymous namespace, a named namespace, a C++17
// `inline` variable and a function-local static. Each custom gradient is a deliberate
// multiple of the true derivative, so a registration that AD missed shows.
// tol: rel=1e-12 abs=1e-14
// grads: 6
// flags: -std=c++17
#include <cmath>
#include <cstdio>

extern "C" double __enzyme_autodiff(void *, ...);

#define CUSTOM(NAME, K)                                                        \
    double NAME(double x) { return x * x; }                                   \
    double aug_##NAME(double x) { return NAME(x); }                           \
    double rev_##NAME(double x, double d) { return K * 2.0 * x * d; }

CUSTOM(sa, 2.0)
CUSTOM(sb, 3.0)
CUSTOM(sc, 4.0)
CUSTOM(sd, 5.0)
CUSTOM(se, 6.0)
CUSTOM(sf, 7.0)

static void *__enzyme_register_gradient_a[3] = {(void *)sa, (void *)aug_sa, (void *)rev_sa};
void *const __enzyme_register_gradient_b[3] = {(void *)sb, (void *)aug_sb, (void *)rev_sb};
namespace {
void *__enzyme_register_gradient_c[3] = {(void *)sc, (void *)aug_sc, (void *)rev_sc};
}
namespace reg {
void *__enzyme_register_gradient_d[3] = {(void *)sd, (void *)aug_sd, (void *)rev_sd};
}
inline void *__enzyme_register_gradient_e[3] = {(void *)se, (void *)aug_se, (void *)rev_se};
void registrations() {
    static void *__enzyme_register_gradient_f[3] = {(void *)sf, (void *)aug_sf,
                                                    (void *)rev_sf};
    (void)__enzyme_register_gradient_f;
}

double call_a(double x) { return sa(x) + x; }
double call_b(double x) { return sb(x) + x; }
double call_c(double x) { return sc(x) + x; }
double call_d(double x) { return sd(x) + x; }
double call_e(double x) { return se(x) + x; }
double call_f(double x) { return sf(x) + x; }

static void check(const char *name, double k, double x, double d) {
    std::printf("grad %s@%g %.17g %.17g\n", name, x, d, k * 2.0 * x + 1.0);
}

int main() {
    const double x = 0.75;
    check("static", 2.0, x, __enzyme_autodiff((void *)call_a, x));
    check("const", 3.0, x, __enzyme_autodiff((void *)call_b, x));
    check("anonymous", 4.0, x, __enzyme_autodiff((void *)call_c, x));
    check("namespace", 5.0, x, __enzyme_autodiff((void *)call_d, x));
    check("inline", 6.0, x, __enzyme_autodiff((void *)call_e, x));
    check("local", 7.0, x, __enzyme_autodiff((void *)call_f, x));
    return 0;
}
