// Forward mode through C++ virtual calls: shapes in a vector of base pointers, each
// area computed by its own override (an indirect call through the vtable), summed
// with weights. Tangent along the scale s, against the analytic derivative.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

struct Shape {
    virtual ~Shape() = default;
    virtual double area(double s) const = 0;
};
struct Square : Shape {
    double side;
    explicit Square(double a) : side(a) {}
    double area(double s) const override { return (s * side) * (s * side); }
};
struct Disc : Shape {
    double r;
    explicit Disc(double a) : r(a) {}
    double area(double s) const override { return M_PI * std::pow(s * r, 2.0); }
};
struct Wave : Shape {
    double k;
    explicit Wave(double a) : k(a) {}
    double area(double s) const override { return std::sin(k * s) * std::exp(0.1 * s); }
};

__attribute__((noinline)) double total(const std::vector<std::unique_ptr<Shape>> *shapes, double s) {
    double sum = 0, w = 1;
    for (const auto &p : *shapes) {
        sum += w * p->area(s);
        w += 0.5;
    }
    return sum;
}

int main() {
    std::vector<std::unique_ptr<Shape>> shapes;
    shapes.emplace_back(new Square(1.5));
    shapes.emplace_back(new Disc(0.7));
    shapes.emplace_back(new Wave(2.0));
    const double ss[4] = {0.3, 0.9, 1.4, 2.2};
    for (int i = 0; i < 4; i++) {
        double s = ss[i];
        double d = __enzyme_fwddiff((void *)total, enzyme_const, &shapes, s, 1.0);
        double ref = 1.0 * 2 * s * 1.5 * 1.5 + 1.5 * M_PI * 2 * s * 0.7 * 0.7 +
                     2.0 * (2.0 * std::cos(2.0 * s) + 0.1 * std::sin(2.0 * s)) * std::exp(0.1 * s);
        std::printf("grad ds@%d %.17g %.17g\n", i, d, ref);
    }
    return 0;
}
