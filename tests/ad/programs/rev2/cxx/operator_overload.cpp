// Operator overloading on a small 3-vector value type (passed and returned by value),
// with -fno-exceptions.
// tol: rel=1e-12 abs=1e-14
// grads: 6
// flags: -fno-exceptions
#include <cmath>
#include <cstdio>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

struct V3 {
    double x, y, z;
    V3 operator+(const V3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
    V3 operator-(const V3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
    V3 operator*(double s) const { return {x * s, y * s, z * s}; }
    double dot(const V3 &o) const { return x * o.x + y * o.y + z * o.z; }
};

double f(const double *p) {
    V3 a{p[0], p[1], p[2]}, b{p[3], p[4], p[5]};
    V3 m = (a + b) * 0.5;
    V3 d = a - b;
    return m.dot(m) * std::sqrt(d.dot(d));
}

int main() {
    double p[6] = {1.0, 0.5, -0.3, 0.2, -1.0, 0.8}, dp[6] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, p, dp);
    double M2 = 0, D2 = 0;
    for (int i = 0; i < 3; i++) {
        double m = 0.5 * (p[i] + p[3 + i]), d = p[i] - p[3 + i];
        M2 += m * m;
        D2 += d * d;
    }
    double D = std::sqrt(D2);
    for (int i = 0; i < 3; i++) {
        double m = 0.5 * (p[i] + p[3 + i]), d = p[i] - p[3 + i];
        std::printf("grad da[%d] %.17g %.17g\n", i, dp[i], m * D + M2 * d / D);
        std::printf("grad db[%d] %.17g %.17g\n", i, dp[3 + i], m * D - M2 * d / D);
    }
    return 0;
}
