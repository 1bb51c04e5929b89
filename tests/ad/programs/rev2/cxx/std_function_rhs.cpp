// std::function as an ODE right-hand side: lambdas capturing the active parameters
// or a model record by reference (`[&p]`, `[&model]`), handed to an integrator that
// calls them in a loop, copied into a second std::function. std::function's manager
// copies the lambda's storage as `i64` words tagged `p2 double` (a pointer to the
// captured pointer); type analysis joined in a pointer to the source storage it
// also stores there, and the word was "floating-point data and integers alike",
// a compile-time error (ClangEnzyme-19 differentiates the first case). A word whose
// own tag names a pointer type is now a pointer move. Reverse and forward. (Lambdas
// capturing doubles by value: rev2/cxx/std_function_captures.cpp.)
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 6
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>

extern "C" {
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
}

using State = std::array<double, 2>;
using Rhs = std::function<State(double, const State &)>;

static State integrate(const Rhs &rhs, State y, int n, double h) {
    for (int i = 0; i < n; i++) {
        State k = rhs(i * h, y);
        y[0] += h * k[0];
        y[1] += h * k[1];
    }
    return y;
}

struct Model {
    const double *p;
    double damping;
};

double f(const double *p) {
    Rhs spring = [&p](double t, const State &y) -> State {
        return {y[1], -p[0] * y[0] - p[1] * y[1] + std::sin(t) * 0.1};
    };
    Model model{p, p[2] * p[2]};
    Rhs damped = [&model](double t, const State &y) -> State {
        return {y[1], -model.p[0] * y[0] - model.damping * y[1] + std::cos(t) * 0.1};
    };
    Rhs copy = damped;  // the manager clones the functor
    State a = integrate(spring, {1.0, 0.0}, 20, 0.05);
    State b = integrate(copy, {0.5, 0.2}, 20, 0.05);
    return a[0] * a[0] + a[1] + b[0] * b[1];
}

int main() {
    const int n = 3;
    double p[n] = {2.0, 0.3, 0.4}, d[n] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, p, d);
    const double h = 1e-6;
    for (int i = 0; i < n; i++) {
        double pp[n], pm[n], t[n] = {0};
        for (int j = 0; j < n; j++) pp[j] = pm[j] = p[j];
        pp[i] += h;
        pm[i] -= h;
        t[i] = 1;
        double fd = (f(pp) - f(pm)) / (2 * h);
        std::printf("grad p%d %.17g %.17g\n", i, d[i], fd);
        std::printf("grad fwd_p%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, p, t), fd);
    }
    return 0;
}
