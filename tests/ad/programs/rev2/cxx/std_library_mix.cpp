// The standard library as numerical C++17 uses it, in one function: std::optional,
// a returned std::tuple taken apart by structured bindings, std::accumulate and
// std::inner_product, a std::list, a std::map<int, double> accumulated by key, a
// std::priority_queue, std::nth_element, std::partial_sort, std::min_element, a
// vector of std::function holding a captureless lambda and a capturing one, a
// vector of vectors. The captureless lambda's std::function manager stores either its
// type_info or its functor address through one phi; typed one case at a time, the
// case's phi kept a constant global (no shadow) behind a phi and the store was an
// error from session 27 (ea72eb6) on: the case clone now folds such phis. Reverse
// mode. (ClangEnzyme-19 fails to build it: std::vector's length_error path.)
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 6
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <tuple>
#include <vector>
extern int enzyme_dup, enzyme_const;
extern "C" void __enzyme_autodiff(void *, ...);

static std::optional<double> safe_log(double v) { if (v <= 0) return std::nullopt; return std::log(v); }
static std::tuple<double, double, int> stats(const std::vector<double> &v) {
    double m = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
    double s2 = std::inner_product(v.begin(), v.end(), v.begin(), 0.0) / v.size() - m * m;
    return {m, s2, (int)v.size()};
}
double f(const double *x, int n) {
    std::vector<double> v(x, x + n);
    std::list<double> l;
    for (double a : v) l.push_back(a * a);
    std::map<int, double> m;
    for (int i = 0; i < n; i++) m[i % 3] += x[i];
    std::priority_queue<double> pq;
    for (double a : v) pq.push(std::sin(a));
    std::vector<double> w = v;
    std::nth_element(w.begin(), w.begin() + n / 2, w.end());
    std::partial_sort(v.begin(), v.begin() + 2, v.end());
    auto [mean, var, cnt] = stats(w);
    double s = mean + var * cnt + *std::min_element(w.begin(), w.end()) + w[n / 2] + v[0] * v[1];
    for (double a : l) s += 0.1 * a;
    for (auto &[k, val] : m) s += (k + 1) * val * val;
    s += pq.top(); pq.pop(); s += 0.5 * pq.top();
    std::vector<std::function<double(double)>> fs = {[](double t) { return t * t; }, [&](double t) { return mean * t; }};
    for (auto &g : fs) s += g(x[0]);
    if (auto lg = safe_log(x[1] * x[1] + 1)) s += *lg;
    std::vector<std::vector<double>> grid(3, std::vector<double>(3));
    for (int i = 0; i < 3; i++) for (int j = 0; j < 3; j++) grid[i][j] = x[(i * 3 + j) % n] * (i - j);
    for (auto &row : grid) s += std::accumulate(row.begin(), row.end(), 0.0) * row[0];
    return s;
}
int main() {
    const int N = 6;
    double x[N] = {0.31, -1.22, 0.73, 2.04, -0.45, 1.17}, dx[N] = {0}, h = 1e-6;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
    for (int i = 0; i < N; i++) {
        double xp[N], xm[N];
        memcpy(xp, x, sizeof x); memcpy(xm, x, sizeof x);
        xp[i] += h; xm[i] -= h;
        printf("grad x%d %.12g %.12g\n", i, dx[i], (f(xp, N) - f(xm, N)) / (2 * h));
    }
}
