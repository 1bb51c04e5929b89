// Vocabulary types: std::optional, std::variant with std::visit (overloaded
// lambdas), std::tuple/std::pair with structured bindings, std::array and std::span.
#include <array>
#include <cstdio>
#include <optional>
#include <span>
#include <tuple>
#include <variant>

template <class... Fs> struct Overloaded : Fs... { using Fs::operator()...; };
template <class... Fs> Overloaded(Fs...) -> Overloaded<Fs...>;

struct Circle { double r; };
struct Square { double side; };
struct Triangle { double a, b, c; };
using Shape = std::variant<Circle, Square, Triangle>;

static double area(const Shape &s) {
    return std::visit(Overloaded{
                          [](const Circle &c) { return 3.14159265 * c.r * c.r; },
                          [](const Square &q) { return q.side * q.side; },
                          [](const Triangle &t) {
                              double p = (t.a + t.b + t.c) / 2;
                              double v = p * (p - t.a) * (p - t.b) * (p - t.c);
                              return v > 0 ? v / p : 0.0;
                          },
                      },
                      s);
}

static std::optional<int> parse_int(const char *s) {
    if (!s || !*s)
        return std::nullopt;
    int v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return std::nullopt;
        v = v * 10 + (*s - '0');
    }
    return v;
}

static std::tuple<double, double, int> stats(std::span<const double> xs) {
    double lo = xs[0], hi = xs[0];
    int neg = 0;
    for (double x : xs) {
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        neg += x < 0;
    }
    return { lo, hi, neg };
}

static std::pair<int, int> divmod(int a, int b) { return { a / b, a % b }; }

int main(int argc, char **argv) {
    std::array<Shape, 3> shapes{ Circle{ 1.0 * argc }, Square{ 2 }, Triangle{ 3, 4, 5 } };
    double total = 0;
    for (const auto &s : shapes)
        total += area(s);
    shapes[1] = Circle{ 0.5 };
    int circles = 0;
    for (const auto &s : shapes)
        circles += std::holds_alternative<Circle>(s);
    auto n1 = parse_int("1234");
    auto n2 = parse_int(argc > 1 ? argv[1] : "12a");
    std::array<double, 6> data{ 3.5, -1, 2, -7.25, 9, double(argc) };
    auto [lo, hi, neg] = stats(data);
    auto [q, r] = divmod(47, 5 + argc);
    std::variant<int, double> num = 2.5;
    if (argc > 2)
        num = 7;
    std::printf("%g %d %d %d %g %g %d %d %d %zu %g\n", total, circles, n1.value_or(-1), n2.value_or(-1), lo, hi,
                neg, q, r, num.index(), std::get_if<double>(&num) ? *std::get_if<double>(&num) : 0.0);
    return 0;
}
