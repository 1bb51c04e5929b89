// An LSTM cell unrolled over a short sequence (ADBench-like), weights active, with
// noinline sigmoid/tanh helpers; loss = sum of squared outputs.
// Reference: central differences of the primal, h = 1e-6 relative.
// tol: rel=1e-6 abs=1e-9
// grads: 18
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { H = 2, T = 4, NW = 4 * H * 2 + 2 }; /* gates: [4H] input weights, [4H] recurrent, 2 out */

__attribute__((noinline)) double sigm(double x) { return 1 / (1 + exp(-x)); }

double lstm_loss(const double *w, const double *xs) {
    const double *wx = w, *wh = w + 4 * H, *wo = w + 8 * H;
    double h[H] = {0}, c[H] = {0}, loss = 0;
    for (int t = 0; t < T; t++) {
        double hn[H];
        for (int j = 0; j < H; j++) {
            double hs = h[0] + h[1];
            double ig = sigm(wx[j] * xs[t] + wh[j] * hs);
            double fg = sigm(wx[H + j] * xs[t] + wh[H + j] * hs);
            double og = sigm(wx[2 * H + j] * xs[t] + wh[2 * H + j] * hs);
            double cg = tanh(wx[3 * H + j] * xs[t] + wh[3 * H + j] * hs);
            c[j] = fg * c[j] + ig * cg;
            hn[j] = og * tanh(c[j]);
        }
        for (int j = 0; j < H; j++) h[j] = hn[j];
        double y = wo[0] * h[0] + wo[1] * h[1];
        loss += (y - 0.1 * t) * (y - 0.1 * t);
    }
    return loss;
}

int main(void) {
    double w[NW], dw[NW] = {0}, xs[T] = {0.5, -0.3, 0.8, 0.1};
    for (int i = 0; i < NW; i++) w[i] = 0.4 * cos(2.1 * i + 0.3);
    __enzyme_autodiff((void *)lstm_loss, enzyme_dup, w, dw, enzyme_const, xs);
    for (int i = 0; i < NW; i++) {
        double save = w[i], h = 1e-6 * fmax(1.0, fabs(save));
        w[i] = save + h;
        double fp = lstm_loss(w, xs);
        w[i] = save - h;
        double fm = lstm_loss(w, xs);
        w[i] = save;
        printf("grad dw[%d] %.17g %.17g\n", i, dw[i], (fp - fm) / (2 * h));
    }
    return 0;
}
