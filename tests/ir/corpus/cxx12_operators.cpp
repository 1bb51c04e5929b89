// Operator overloading: arithmetic and compound assignment on a 3-vector and a
// rational type, comparison via operator<=> (C++20), subscript, call operator,
// conversion operators, stream-like operator<<, increment, and user-defined literals.
#include <compare>
#include <cstdio>
#include <numeric>

struct Vec3 {
    double x = 0, y = 0, z = 0;
    Vec3 &operator+=(const Vec3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
    Vec3 &operator*=(double k) { x *= k; y *= k; z *= k; return *this; }
    double operator[](int i) const { return i == 0 ? x : i == 1 ? y : z; }
    Vec3 operator-() const { return { -x, -y, -z }; }
    bool operator==(const Vec3 &) const = default;
};
inline Vec3 operator+(Vec3 a, const Vec3 &b) { return a += b; }
inline Vec3 operator*(Vec3 a, double k) { return a *= k; }
inline Vec3 operator*(double k, Vec3 a) { return a *= k; }
inline double operator|(const Vec3 &a, const Vec3 &b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

class Rational {
public:
    constexpr Rational(long n = 0, long d = 1) : n_(n), d_(d) { normalize(); }
    constexpr Rational operator+(const Rational &o) const { return { n_ * o.d_ + o.n_ * d_, d_ * o.d_ }; }
    constexpr Rational operator*(const Rational &o) const { return { n_ * o.n_, d_ * o.d_ }; }
    constexpr Rational operator/(const Rational &o) const { return { n_ * o.d_, d_ * o.n_ }; }
    std::strong_ordering operator<=>(const Rational &o) const { return n_ * o.d_ <=> o.n_ * d_; }
    bool operator==(const Rational &o) const { return n_ == o.n_ && d_ == o.d_; }
    Rational &operator++() { n_ += d_; return *this; }
    Rational operator++(int) { Rational t = *this; ++*this; return t; }
    explicit operator double() const { return double(n_) / double(d_); }
    explicit operator bool() const { return n_ != 0; }
    long num() const { return n_; }
    long den() const { return d_; }
private:
    constexpr void normalize() {
        if (d_ < 0) { n_ = -n_; d_ = -d_; }
        long g = std::gcd(n_ < 0 ? -n_ : n_, d_);
        if (g > 1) { n_ /= g; d_ /= g; }
    }
    long n_, d_;
};

constexpr Rational operator""_r(unsigned long long v) { return Rational(long(v)); }

struct Printer {
    int written = 0;
    Printer &operator<<(const char *s) { written += std::printf("%s", s); return *this; }
    Printer &operator<<(double v) { written += std::printf("%g", v); return *this; }
    Printer &operator<<(const Rational &r) { written += std::printf("%ld/%ld", r.num(), r.den()); return *this; }
};

struct Polynomial {
    double c[4];
    double operator()(double x) const { return ((c[3] * x + c[2]) * x + c[1]) * x + c[0]; }
};

int main(int argc, char **) {
    Vec3 a{ 1, 2, 3 }, b{ 0.5, -1, double(argc) };
    Vec3 c = 2.0 * a + -b * 0.5;
    Rational h(1, 2), t(1, 3);
    Rational s = h + t * Rational(argc, 4);
    Rational q = s / (3_r + h);
    Rational i = q++;
    Polynomial p{ { 1, 0, -2, 0.5 } };
    Printer out;
    out << "c=" << c[0] << "," << c[2] << " s=" << s << " q=" << q << " i=" << i << "\n";
    std::printf("%d %d %d %g %g %d %d\n", a == b, h < t, (s <=> q) == 0, double(q), a | c, bool(Rational(0)),
                out.written > 10 ? int(p(argc)) : 0);
    return 0;
}
