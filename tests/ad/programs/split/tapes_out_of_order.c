// A recursive function's tapes come from a per-thread stack (`tape_stack`): blocks
// freed out of order stay until the blocks above them are freed, blocks that do not
// fit come from malloc, and the stack is regrown when it is empty. Here two forward
// passes are kept and reversed in the order they were made (first tape first: out
// of order for a stack), several times: three tapes of 40 KB are more than the
// first stack holds, so the third comes from malloc and the stack is regrown in the
// next round. Gradients against the analytic ones.
// tol: rel=1e-12 abs=1e-14
// grads: 16
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
extern int enzyme_dup, enzyme_const;

void f(const double *x, double *y, int n) {
    if (n > 3000) {  /* never taken here; f is recursive, so its tapes come from the stack */
        f(x, y, 3000);
        f(x + 3000, y + 3000, n - 3000);
        return;
    }
    double t[5000];  /* read by the reverse: lives in the tape, 40 KB */
    for (int i = 0; i < n; i++)
        t[i] = x[i] * x[(i + 1) % n];
    for (int i = 0; i < n; i++)
        y[i] = sin(t[i]);
}

static void expected(const double *x, const double *w, int n, double *g) {
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        double c = cos(x[i] * x[j]);
        g[i] += w[i] * c * x[j];
        g[j] += w[i] * c * x[i];
    }
}

int main(void) {
    enum { MAX = 4000 };
    static double x[MAX], z[MAX], y[MAX], yz[MAX], dx[MAX], dz[MAX], wx[MAX], wz[MAX], ex[MAX], ez[MAX];
    double worst_x = 0, worst_z = 0, ref_x = 0, ref_z = 0;
    for (int round = 0; round < 8; round++) {
        int n = 5 + round * round * 60;  /* 5 ... 2945: the first rounds fit, later ones overflow */
        for (int i = 0; i < n; i++) {
            x[i] = 0.3 + 0.01 * ((i * 7 + round) % 13);
            z[i] = -0.2 + 0.02 * ((i * 5 + round) % 11);
            dx[i] = dz[i] = ex[i] = ez[i] = 0;
            wx[i] = 1 + (i % 3);
            wz[i] = 2 - (i % 2);
        }
        void *ta = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx, enzyme_dup, y, wx, enzyme_const, n);
        void *tb = __enzyme_augmentfwd((void *)f, enzyme_dup, z, dz, enzyme_dup, yz, wz, enzyme_const, n);
        __enzyme_reverse((void *)f, enzyme_dup, x, dx, enzyme_dup, y, wx, enzyme_const, n, ta);
        for (int i = 0; i < n; i++) wx[i] = 1 + (i % 3);  /* the reverse consumed the seeds */
        void *tc = __enzyme_augmentfwd((void *)f, enzyme_dup, x, ex, enzyme_dup, y, wx, enzyme_const, n);
        __enzyme_reverse((void *)f, enzyme_dup, z, dz, enzyme_dup, yz, wz, enzyme_const, n, tb);
        __enzyme_reverse((void *)f, enzyme_dup, x, ex, enzyme_dup, y, wx, enzyme_const, n, tc);
        double gx[MAX] = {0}, gz[MAX] = {0}, w1[MAX], w2[MAX];
        for (int i = 0; i < n; i++) {
            w1[i] = 1 + (i % 3);
            w2[i] = 2 - (i % 2);
        }
        expected(x, w1, n, gx);
        expected(z, w2, n, gz);
        for (int i = 0; i < n; i++) {
            double e1 = fabs(dx[i] - gx[i]) + fabs(ex[i] - gx[i]), e2 = fabs(dz[i] - gz[i]);
            if (e1 > worst_x) worst_x = e1, ref_x = gx[i];
            if (e2 > worst_z) worst_z = e2, ref_z = gz[i];
        }
        if (round < 7)
            continue;
        for (int i = 0; i < 7; i++) printf("grad dx[%d] %.17g %.17g\n", i, dx[i], gx[i]);
        for (int i = 0; i < 7; i++) printf("grad dz[%d] %.17g %.17g\n", i, dz[i], gz[i]);
    }
    /* the largest disagreement over every round and entry, as one more pair */
    printf("grad worst_x %.17g %.17g\n", ref_x + worst_x, ref_x);
    printf("grad worst_z %.17g %.17g\n", ref_z + worst_z, ref_z);
    return 0;
}
