// Standard containers and owners not covered elsewhere, in one function:
// std::valarray arithmetic, sum and max; unique_ptr<double[]>; make_shared; a deque
// grown at both ends; a vector of unique_ptr to virtual nodes of two classes;
// std::sort of a copy. (Probed beside ClangEnzyme-19 for type-erasure-like storage:
// all differentiate.) Reverse mode.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 7
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <numeric>
#include <valarray>
#include <vector>

extern "C" {
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
}

struct Node { virtual ~Node() = default; virtual double eval(const double *x) const = 0; };
struct Sq : Node { int i; explicit Sq(int i) : i(i) {} double eval(const double *x) const override { return x[i] * x[i]; } };
struct Sn : Node { int i; double w; Sn(int i, double w) : i(i), w(w) {} double eval(const double *x) const override { return w * std::sin(x[i]); } };
double f(const double *x, int n) {
  std::valarray<double> v(x, n);
  std::valarray<double> w = v * v + std::sin(v);
  double s = w.sum() + (v * 2.0).max();
  auto u = std::make_unique<double[]>(n);
  for (int i = 0; i < n; i++) u[i] = x[i] * 0.5;
  std::shared_ptr<double> sp = std::make_shared<double>(x[1] * x[2]);
  std::deque<double> dq;
  for (int i = 0; i < n; i++) { if (i % 2) dq.push_back(x[i]); else dq.push_front(x[i] * 1.5); }
  std::vector<std::unique_ptr<Node>> nodes;
  for (int i = 0; i < n; i++) { if (i % 2) nodes.push_back(std::make_unique<Sq>(i)); else nodes.push_back(std::make_unique<Sn>(i, 0.3 + i)); }
  for (auto &p : nodes) s += p->eval(x);
  std::vector<double> sorted(x, x + n); std::sort(sorted.begin(), sorted.end());
  return s + u[n - 1] * (*sp) + std::accumulate(dq.begin(), dq.end(), 0.0) + sorted[0] * sorted[n-1];
}
int main() {
    const int n = 7;
    double x[n] = {0.3, -0.7, 1.1, 0.5, 0.9, -1.3, 0.2}, dx[n] = {0};
    const double h = 1e-6;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
    for (int i = 0; i < n; i++) {
        double xp[n], xm[n];
        std::memcpy(xp, x, sizeof x);
        std::memcpy(xm, x, sizeof x);
        xp[i] += h;
        xm[i] -= h;
        std::printf("grad x%d %.17g %.17g\n", i, dx[i], (f(xp, n) - f(xm, n)) / (2 * h));
    }
    return 0;
}
