// Forward-mode AD with a templated dual-number class: operator overloading,
// function templates instantiated for double and Dual<double>, nested duals for
// second derivatives, and math functions overloaded on the dual type.
#include <cmath>
#include <cstdio>

template <typename T>
struct Dual {
    T v, d;
    constexpr Dual(T value = T(), T deriv = T()) : v(value), d(deriv) {}
};

template <typename T> Dual<T> operator+(Dual<T> a, Dual<T> b) { return { a.v + b.v, a.d + b.d }; }
template <typename T> Dual<T> operator-(Dual<T> a, Dual<T> b) { return { a.v - b.v, a.d - b.d }; }
template <typename T> Dual<T> operator*(Dual<T> a, Dual<T> b) { return { a.v * b.v, a.d * b.v + a.v * b.d }; }
template <typename T> Dual<T> operator/(Dual<T> a, Dual<T> b) {
    return { a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v) };
}
template <typename T> Dual<T> operator*(double k, Dual<T> a) { return { k * a.v, k * a.d }; }
template <typename T> bool operator<(Dual<T> a, Dual<T> b) { return a.v < b.v; }

using std::cos;
using std::exp;
using std::log;
using std::sin;
using std::sqrt;
template <typename T> Dual<T> sin(Dual<T> a) { return { sin(a.v), a.d * cos(a.v) }; }
template <typename T> Dual<T> cos(Dual<T> a) { return { cos(a.v), T(0) - a.d * sin(a.v) }; }
template <typename T> Dual<T> exp(Dual<T> a) { T e = exp(a.v); return { e, a.d * e }; }
template <typename T> Dual<T> log(Dual<T> a) { return { log(a.v), a.d / a.v }; }
template <typename T> Dual<T> sqrt(Dual<T> a) { T s = sqrt(a.v); return { s, a.d / (2.0 * s) }; }

template <typename T>
T objective(const T *x, int n) {
    T s = T(0);
    for (int i = 0; i < n; i++) {
        T xi = x[i];
        s = s + sin(xi) * exp(xi * T(0.1)) + log(xi * xi + T(1));
    }
    return sqrt(s * s + T(1));
}

template <typename T>
T rosen(T x, T y) {
    T a = T(1) - x, b = y - x * x;
    return a * a + 100.0 * (b * b);
}

static void gradient(const double *x, double *g, int n) {
    Dual<double> xs[8];
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < n; i++)
            xs[i] = Dual<double>(x[i], i == k ? 1.0 : 0.0);
        g[k] = objective(xs, n).d;
    }
}

static double second_derivative(double x0) {
    using DD = Dual<Dual<double>>;
    DD x(Dual<double>(x0, 1.0), Dual<double>(1.0, 0.0));
    DD y = sin(x) * x;
    return y.d.d;
}

int main(int argc, char **) {
    double x[4] = { 0.5, 1.0, 1.5, 0.1 * argc }, g[4];
    gradient(x, g, 4);
    Dual<double> rx(1.2, 1.0), ry(0.8, 0.0);
    double drdx = rosen(rx, ry).d;
    std::printf("%g %g %g %g %g %g %g\n", objective(x, 4), g[0], g[1], g[3], drdx, rosen(1.0, 1.0),
                second_derivative(0.3 * argc));
    return 0;
}
