// End to end: the Cholesky factor L of S = G G^T + n I, computed in C, then solves with it
// through CBLAS: y = L^-1 b (dtrsv), X = S^-1 C = L^-T (L^-1 C) (two dtrsm on the left),
// Y = 0.5 D L^-T (a dtrsm on the right, reading L's storage row-major: an upper triangle);
// loss = y.y + sum W X + sum V Y. Reverse mode (gradients of G, b, C, D) and forward mode
// (every input along a direction: the tangent of the loss and of y, X and Y), against
// central differences.
// tol: rel=1e-6 abs=1e-8
// grads: 57
// flags: -lopenblas -lm
#include <cblas.h>
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { NN = 4, LD = 5, SL = LD * NN, SG = NN * NN, SC = NN * 2 };
static double W[SC], V[SC];

double loss(const double *G, double *b, double *C, double *D) {
    double L[SL] = {0};
    for (int j = 0; j < NN; j++)
        for (int i = j; i < NN; i++) {
            double s = i == j ? NN : 0;
            for (int k = 0; k < NN; k++) s += G[i * NN + k] * G[j * NN + k];
            for (int k = 0; k < j; k++) s -= L[i + k * LD] * L[j + k * LD];
            L[i + j * LD] = i == j ? sqrt(s) : s / L[j + j * LD];
        }
    cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, NN, L, LD, b, 1);
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, NN, 2, 1.0, L, LD, C, NN);
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, NN, 2, 1.0, L, LD, C, NN);
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, 2, NN, 0.5, L, LD, D, NN);
    double s = 0;
    for (int i = 0; i < NN; i++) s += b[i] * b[i];
    for (int i = 0; i < SC; i++) s += W[i] * C[i] + V[i] * D[i];
    return s;
}

static double G0[SG], b0[NN], C0[SC], D0[SC], dG0[SG], db0[NN], dC0[SC], dD0[SC];
static double bout[NN], Cout[SC], Dout[SC];

static double ev(void) {
    memcpy(bout, b0, sizeof bout), memcpy(Cout, C0, sizeof Cout), memcpy(Dout, D0, sizeof Dout);
    return loss(G0, bout, Cout, Dout);
}

static void move(double *to, const double *base, const double *dir, int len, double t) {
    for (int i = 0; i < len; i++) to[i] = base[i] + t * dir[i];
}

static double at(double t) {
    double G[SG];
    move(G, G0, dG0, SG, t), move(bout, b0, db0, NN, t), move(Cout, C0, dC0, SC, t), move(Dout, D0, dD0, SC, t);
    return loss(G, bout, Cout, Dout);
}

int main(void) {
    fill(G0, SG, 0.3), fill(b0, NN, 1.3), fill(C0, SC, 2.3), fill(D0, SC, 3.3), fill(W, SC, 4.3);
    fill(V, SC, 5.3), fill(dG0, SG, 6.3), fill(db0, NN, 7.3), fill(dC0, SC, 8.3), fill(dD0, SC, 9.3);

    double G[SG], b[NN], C[SC], D[SC], dG[SG] = {0}, db[NN] = {0}, dC[SC] = {0}, dD[SC] = {0};
    memcpy(G, G0, sizeof G), memcpy(b, b0, sizeof b), memcpy(C, C0, sizeof C), memcpy(D, D0, sizeof D);
    __enzyme_autodiff((void *)loss, G, dG, b, db, C, dC, D, dD);
    check_array("rev", "G", ev, G0, dG, SG);
    check_array("rev", "b", ev, b0, db, NN);
    check_array("rev", "C", ev, C0, dC, SC);
    check_array("rev", "D", ev, D0, dD, SC);

    memcpy(G, G0, sizeof G), memcpy(b, b0, sizeof b), memcpy(C, C0, sizeof C), memcpy(D, D0, sizeof D);
    memcpy(dG, dG0, sizeof G), memcpy(db, db0, sizeof b), memcpy(dC, dC0, sizeof C), memcpy(dD, dD0, sizeof D);
    double d = __enzyme_fwddiff((void *)loss, G, dG, b, db, C, dC, D, dD);
    double h = 1e-6, bu[NN], Cu[SC], Du[SC], up = at(h);
    memcpy(bu, bout, sizeof bu), memcpy(Cu, Cout, sizeof Cu), memcpy(Du, Dout, sizeof Du);
    double down = at(-h);
    grad("fwd", "loss", 0, d, (up - down) / (2 * h));
    for (int i = 0; i < NN; i++) grad("fwd", "y", i, db[i], (bu[i] - bout[i]) / (2 * h));
    for (int i = 0; i < SC; i++) grad("fwd", "X", i, dC[i], (Cu[i] - Cout[i]) / (2 * h));
    for (int i = 0; i < SC; i++) grad("fwd", "Y", i, dD[i], (Du[i] - Dout[i]) / (2 * h));
    return 0;
}
