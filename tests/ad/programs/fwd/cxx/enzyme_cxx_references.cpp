// The C++ interface with reference parameters and class results: a parameter taken
// by reference is passed as Duplicated<const T&>(value, shadow) (the shadow object
// receives the derivative in reverse mode, holds the tangent in forward mode) or
// Const<const T&>; in forward mode f may return a std::vector by value (its tangent
// is another vector), including the empty one. Analytic references.
// tol: rel=1e-12 abs=1e-14
// grads: 14
// flags: -std=c++17
#include <cmath>
#include <cstdio>
#include <vector>
#include <enzyme/enzyme>

using Vec = std::vector<double>;

float square_ref(const float &x) { return x * x; }

double weighted_sum(const Vec &x, const Vec &w) {
    double s = 0;
    for (std::size_t i = 0; i < x.size(); i++) s += w[i] * x[i] * x[i];
    return s;
}

Vec scaled_copy(const Vec &x, const double &s) {
    Vec out(x.size());
    for (std::size_t i = 0; i < x.size(); i++) out[i] = s * std::sin(x[i]);
    return out;
}

Vec plain_copy(const Vec &x) { return x; }

int main() {
    const float xf = 1.5f;
    float dxf = 0;
    enzyme::autodiff<enzyme::Reverse>(square_ref, enzyme::Duplicated<const float &>(xf, dxf));
    std::printf("grad square_ref %.17g %.17g\n", (double)dxf, 2.0 * xf);

    const Vec x{0.3, -1.2, 2.0}, w{1.0, 2.0, 0.5};
    Vec dx(3);
    enzyme::autodiff<enzyme::Reverse>(weighted_sum, enzyme::DuplicatedNoNeed<const Vec &>(x, dx),
                                      enzyme::Const<const Vec &>(w));
    for (int i = 0; i < 3; i++) std::printf("grad weighted_sum.dx%d %.17g %.17g\n", i, dx[i], 2 * w[i] * x[i]);

    const Vec tx{1.0, 0.0, -1.0};
    const double s = 1.5;
    auto t = enzyme::get<0>(enzyme::autodiff<enzyme::Forward, enzyme::DuplicatedNoNeed<Vec>>(
        scaled_copy, enzyme::Duplicated<const Vec &>(x, tx), enzyme::Const<const double &>(s)));
    for (int i = 0; i < 3; i++)
        std::printf("grad scaled_copy.t%d %.17g %.17g\n", i, t[i], s * std::cos(x[i]) * tx[i]);

    auto both = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<Vec>>(
        plain_copy, enzyme::Duplicated<const Vec &>(x, tx));
    for (int i = 0; i < 3; i++) {
        std::printf("grad plain_copy.result%d %.17g %.17g\n", i, enzyme::get<0>(both)[i], x[i]);
        std::printf("grad plain_copy.tangent%d %.17g %.17g\n", i, enzyme::get<1>(both)[i], tx[i]);
    }

    const Vec empty, dempty;
    auto none = enzyme::get<0>(enzyme::autodiff<enzyme::Forward, enzyme::DuplicatedNoNeed<Vec>>(
        plain_copy, enzyme::Duplicated<const Vec &>(empty, dempty)));
    std::printf("grad empty_size %.17g %.17g\n", (double)none.size(), 0.0);
    return 0;
}
