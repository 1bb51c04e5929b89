// std::list in differentiated code: push_back/push_front, insert in the middle,
// erase, splice, sort, remove_if, reverse, swap, a list of records, and a list the
// caller passes with its shadow list (enzyme_dup, same length) that the function
// grows and shrinks; reverse and forward mode. libstdc++ links and unlinks list nodes in out-of-line
// functions of libstdc++.so (`_List_node_base::_M_hook`, `_M_unhook`,
// `_M_transfer`, `_M_reverse`, `swap`), which touch only the nodes' links: the
// forward pass calls them again on the shadow nodes so the shadow list keeps the
// primal's shape (as for std::map's tree). This was "cannot differentiate call to
// external function _M_hook"; ClangEnzyme-19 rejects both functions too.
// Reference: central finite differences (the inputs keep every comparison of
// sort and remove_if away from a tie), and analytic for `grow`.
// tol: rel=1e-6 abs=1e-8
// grads: 14
#include <cstdio>
#include <iterator>
#include <list>

extern "C" {
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
}

struct P { int id; double w; };

double f(const double *x, int n) {
    std::list<double> a, b;
    for (int i = 0; i < n; i++) a.push_back(x[i] * (i + 1));
    for (int i = 0; i < n; i++) b.push_front(x[i] * x[i]);
    a.insert(std::next(a.begin(), 2), x[0] * x[1]);
    a.erase(std::next(a.begin()));
    a.splice(std::next(a.begin()), b, b.begin(), std::next(b.begin(), 2));
    a.sort();
    b.remove_if([](double v) { return v > 4.0; });
    std::list<P> ps;
    for (int i = 0; i < n; i++) ps.push_back({i, x[i] * 0.5});
    ps.reverse();
    a.swap(b);
    double s = 0, k = 1;
    for (double v : a) { s += v * k; k += 0.5; }
    for (double v : b) { s += v * v * k; k += 0.25; }
    for (const P &p : ps) s += p.w * (p.id + 1) * k;
    return s;
}

// l = (l0, l1, l2): appends 2c, returns sum_i (i+1) v_i^2 over the four, drops l0.
double grow(std::list<double> &l, double c) {
    l.push_back(c * 2.0);
    double s = 0, k = 1;
    for (double v : l) { s += v * v * k; k += 1; }
    l.pop_front();
    return s;
}

int main() {
    const int n = 5;
    double x[n] = {1.5, -1.9, 0.7, 0.25, 3.0}, d[n] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, n);
    const double h = 1e-6;
    for (int i = 0; i < n; i++) {
        double xp[n], xm[n];
        for (int j = 0; j < n; j++) xp[j] = xm[j] = x[j];
        xp[i] += h;
        xm[i] -= h;
        double fd = (f(xp, n) - f(xm, n)) / (2 * h);
        double t[n] = {0};
        t[i] = 1;
        printf("grad x%d %.17g %.17g\n", i, d[i], fd);
        printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, n), fd);
    }

    std::list<double> l = {1.5, -1.9, 0.7}, dl = {0, 0, 0};
    double dc = __enzyme_autodiff((void *)grow, enzyme_dup, &l, &dl, 0.3);
    // dl lost its first node with l's; what is left is the shadow of l1, l2 and the new 2c
    double want[3] = {2 * -1.9 * 2, 2 * 0.7 * 3, 0.0};
    int i = 0;
    for (double v : dl) {
        printf("grad l%d %.17g %.17g\n", i + 1, v, want[i]);
        i++;
    }
    printf("grad c %.17g %.17g\n", dc, 2 * 0.6 * 2 * 4);
    // (dl's node links follow l's; its size field holds no derivative, and the
    // derivative may leave or clear it: walk dl, do not ask dl.size())
    return l.size() == 3 && i == 3 ? 0 : 1;
}
