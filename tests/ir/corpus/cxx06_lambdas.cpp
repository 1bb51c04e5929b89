// Lambdas: captures by value/reference/init-capture/this, mutable lambdas, generic
// lambdas, recursive lambdas via std::function, lambdas stored in std::function and
// passed to templates, immediately-invoked lambdas and function-pointer conversion.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

class Counter {
public:
    std::function<int()> make_incrementer(int step) {
        return [this, step] { return value_ += step; };
    }
    int value() const { return value_; }
private:
    int value_ = 0;
};

template <typename F>
double integrate(F f, double a, double b, int n) {
    double h = (b - a) / n, s = 0.5 * (f(a) + f(b));
    for (int i = 1; i < n; i++)
        s += f(a + i * h);
    return s * h;
}

static int apply_fp(int (*fp)(int), int x) { return fp(x); }

static std::function<double(double)> compose(std::function<double(double)> f, std::function<double(double)> g) {
    return [f, g](double x) { return f(g(x)); };
}

int main(int argc, char **) {
    int base = 10;
    auto add_base = [base](int x) { return x + base; };
    auto bump = [&base](int by) { base += by; };
    auto counter = [n = 0]() mutable { return ++n; };
    auto generic_max = [](auto a, auto b) { return a < b ? b : a; };
    bump(argc);
    counter();
    int third = counter() + counter();

    std::vector<int> v{ 5, 3, 8, 1, 9, 2, argc };
    std::sort(v.begin(), v.end(), [](int a, int b) { return a > b; });
    int threshold = 4;
    long big = std::count_if(v.begin(), v.end(), [threshold](int x) { return x > threshold; });
    int total = 0;
    std::for_each(v.begin(), v.end(), [&total](int x) { total += x; });

    std::function<long(int)> fib = [&fib](int n) -> long { return n < 2 ? n : fib(n - 1) + fib(n - 2); };
    double area = integrate([argc](double x) { return x * x * argc; }, 0.0, 1.0, 100);
    int via_fp = apply_fp([](int x) { return x * 3; }, argc);
    auto sq_then_inc = compose([](double x) { return x + 1; }, [](double x) { return x * x; });
    Counter c;
    auto inc = c.make_incrementer(argc + 1);
    inc();
    inc();
    const int init = [&] {
        int s = 0;
        for (int x : v) s += x % 3;
        return s;
    }();
    std::printf("%d %d %d %g %ld %d %ld %g %d %g %d %d\n", add_base(1), base, third, generic_max(2.5, 1.5),
                big, total, fib(12), area, via_fp, sq_then_inc(3.0), c.value(), init);
    return 0;
}
