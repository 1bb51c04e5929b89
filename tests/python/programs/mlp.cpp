// C++ internals behind an extern "C" interface: a tiny two-layer network's loss.
#include <cmath>
#include <vector>
#ifndef REAL
#define REAL double
#endif

namespace {
template <typename T> T sigmoid(T v) { return T(1) / (T(1) + std::exp(-v)); }

struct Layer {
    const REAL *w;
    int in, out;
    std::vector<REAL> apply(const std::vector<REAL> &x) const {
        std::vector<REAL> y(out);
        for (int o = 0; o < out; o++) {
            REAL s = 0;
            for (int i = 0; i < in; i++) s += w[o * in + i] * x[i];
            y[o] = sigmoid(s);
        }
        return y;
    }
};
}  // namespace

extern "C" REAL mlp_loss(const REAL *w1, const REAL *w2, const REAL *x, REAL target,
                         int in, int hidden) {
    std::vector<REAL> input(x, x + in);
    std::vector<REAL> h = Layer{w1, in, hidden}.apply(input);
    REAL y = Layer{w2, hidden, 1}.apply(h)[0];
    return (y - target) * (y - target);
}
