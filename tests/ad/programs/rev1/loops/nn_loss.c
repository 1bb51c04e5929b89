// A neural-network-style loss (dense tanh layer, linear output, squared error over a
// small batch) written to *loss; loss is dupnoneed with d_loss seeded to 1.0.
// Reference: central differences of the primal, h = 1e-6 * max(1, |w|).
// tol: rel=1e-6 abs=1e-8
// grads: 21
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);

enum { IN = 3, HID = 4, BATCH = 5 };
/* weights: W1[HID][IN], b1[HID], w2[HID], b2 -> 12 + 4 + 4 + 1 = 21 parameters */
enum { NW = HID * IN + HID + HID + 1 };

void loss_fn(const double *w, const double *xs, const double *ys, double *loss) {
    const double *W1 = w, *b1 = w + HID * IN, *w2 = b1 + HID, *b2 = w2 + HID;
    double total = 0;
    for (int b = 0; b < BATCH; b++) {
        const double *x = xs + b * IN;
        double out = *b2;
        for (int h = 0; h < HID; h++) {
            double a = b1[h];
            for (int i = 0; i < IN; i++) a += W1[h * IN + i] * x[i];
            out += w2[h] * tanh(a);
        }
        double e = out - ys[b];
        total += 0.5 * e * e;
    }
    *loss = total / BATCH;
}

static double primal(const double *w, const double *xs, const double *ys) {
    double l;
    loss_fn(w, xs, ys, &l);
    return l;
}

int main(void) {
    double w[NW], dw[NW], xs[BATCH * IN], ys[BATCH];
    for (int i = 0; i < NW; i++) { w[i] = 0.3 * sin(1.7 * i + 0.2); dw[i] = 0; }
    for (int i = 0; i < BATCH * IN; i++) xs[i] = cos(0.9 * i);
    for (int b = 0; b < BATCH; b++) ys[b] = 0.5 * b - 0.7;
    double loss = 0, d_loss = 1.0;
    __enzyme_autodiff((void *)loss_fn, enzyme_dup, w, dw, enzyme_const, xs, enzyme_const, ys,
                      enzyme_dupnoneed, &loss, &d_loss);
    for (int i = 0; i < NW; i++) {
        double save = w[i], h = 1e-6 * fmax(1.0, fabs(save));
        w[i] = save + h;
        double fp = primal(w, xs, ys);
        w[i] = save - h;
        double fm = primal(w, xs, ys);
        w[i] = save;
        printf("grad dw[%d] %.17g %.17g\n", i, dw[i], (fp - fm) / (2 * h));
    }
    return 0;
}
