// The C++ interface <enzyme/enzyme> with function objects instead of functions: a
// struct whose overloaded operator() is chosen by the argument types, and lambdas
// (one capturing a constant by value, one by reference), in reverse and forward
// mode, against the analytic derivatives. The object itself is a constant.
// tol: rel=1e-12 abs=1e-14
// grads: 7
// flags: -std=c++17
#include <cmath>
#include <cstdio>
#include <enzyme/enzyme>

struct Overloaded {
    double operator()(double x) { return std::sin(x) * 10; }
    float operator()(float x) { return x * x * 2; }
    double operator()(double x, double y) { return x * y * y; }
};

int main() {
    double x = 0.6, y = 1.5;
    auto r1 = enzyme::autodiff<enzyme::Reverse>(Overloaded{}, enzyme::Active<double>(x));
    std::printf("grad overload_double %.17g %.17g\n", enzyme::get<0>(enzyme::get<0>(r1)), 10 * std::cos(x));
    auto r2 = enzyme::autodiff<enzyme::Reverse>(Overloaded{}, enzyme::Active<float>(0.75f));
    std::printf("grad overload_float %.17g %.17g\n", (double)enzyme::get<0>(enzyme::get<0>(r2)), 4 * 0.75);
    auto r3 = enzyme::autodiff<enzyme::Reverse>(Overloaded{}, enzyme::Active<double>(x), enzyme::Active<double>(y));
    std::printf("grad overload_two_dx %.17g %.17g\n", enzyme::get<0>(enzyme::get<0>(r3)), y * y);
    std::printf("grad overload_two_dy %.17g %.17g\n", enzyme::get<1>(enzyme::get<0>(r3)), 2 * x * y);

    const double k = 3.0;
    auto by_value = [k](double v) { return k * std::exp(v); };
    auto r4 = enzyme::autodiff<enzyme::Reverse>(by_value, enzyme::Active<double>(x));
    std::printf("grad lambda_value %.17g %.17g\n", enzyme::get<0>(enzyme::get<0>(r4)), k * std::exp(x));

    double scale = 0.5;
    auto by_reference = [&scale](double v) { return scale * v * v * v; };
    auto t = enzyme::autodiff<enzyme::Forward>(by_reference, enzyme::Duplicated<double>(x, 1.0));
    std::printf("grad lambda_ref_fwd %.17g %.17g\n", enzyme::get<0>(t), 3 * scale * x * x);
    auto tp = enzyme::autodiff<enzyme::ForwardWithPrimal>(by_value, enzyme::Duplicated<double>(x, 2.0));
    std::printf("grad lambda_fwd_primal %.17g %.17g\n", enzyme::get<1>(tp), 2 * k * std::exp(x));
    return 0;
}
