// Forward split mode with a tape across calls: a callee (kept a call: noinline) that
// adds into the caller's array through a pointer, a heap buffer the function
// allocates, fills and frees, and an input overwritten after the callee ran.
// __enzyme_fwdsplit calls the callee's own tangent replay on the same tape;
// __enzyme_augmentfwd declared to return {result, tape} returns f's result too. Against
// central finite differences of the result and of the arrays; the arrays must hold
// the primal's results, and the primal must have run once (a global counter). The
// caller then overwrites the arrays and the counter: __enzyme_fwdsplit must neither
// read nor write them.
// tol: rel=1e-6 abs=1e-9
// grads: 19
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { double result; void *tape; } Augmented;
Augmented __enzyme_augmentfwd(void *, ...);
double __enzyme_fwdsplit(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 3
int runs; /* how many times model's body ran */

__attribute__((noinline)) void add_squares(double *out, const double *x, double a, int n) {
    for (int i = 0; i < n; i++) out[i] += a * x[i] * x[i];
}

double model(double *out, double *x, double a, int n) {
    double *tmp = malloc(n * sizeof *tmp);
    for (int i = 0; i < n; i++) tmp[i] = exp(x[i]);
    add_squares(out, tmp, a, n);
    x[0] = out[0] * tmp[1]; /* an input overwritten after the callee */
    double r = out[n - 1] * x[0];
    free(tmp);
    runs++;
    return r;
}

int main(void) {
    const double out0[N] = {0.2, -0.4, 1.1}, x0[N] = {0.3, -0.6, 0.4}, a0 = 1.3;
    const double vout[N] = {0.3, -0.2, 0.5}, vx[N] = {1.0, 0.5, -0.7}, va = 0.4;
    double out[N], dout[N], x[N], dx[N], once_out[N], once_x[N];
    memcpy(out, out0, sizeof out);
    memcpy(x, x0, sizeof x);
    memcpy(dout, vout, sizeof dout);
    memcpy(dx, vx, sizeof dx);
    memcpy(once_out, out0, sizeof once_out);
    memcpy(once_x, x0, sizeof once_x);
    double r_once = model(once_out, once_x, a0, N);
    runs = 0;
    Augmented aug = __enzyme_augmentfwd((void *)model, enzyme_dup, out, dout, enzyme_dup, x, dx, a0, enzyme_const, N);
    void *tape = aug.tape;
    printf("grad runs %d %d\n", runs, 1);
    printf("grad r_once %.17g %.17g\n", aug.result, r_once);
    for (int i = 0; i < N; i++) printf("grad out_once[%d] %.17g %.17g\n", i, out[i], once_out[i]);
    printf("grad x0_once %.17g %.17g\n", x[0], once_x[0]);
    for (int i = 0; i < N; i++) {
        out[i] = 10.0 + i;
        x[i] = 20.0 + i;
    }
    runs = 40;
    double dr = __enzyme_fwdsplit((void *)model, enzyme_dup, out, dout, enzyme_dup, x, dx, enzyme_dup, a0, va,
                                  enzyme_const, N, tape);
    printf("grad runs_untouched %d %d\n", runs, 40);
    for (int i = 0; i < N; i++) {
        printf("grad out_untouched[%d] %.17g %.17g\n", i, out[i], 10.0 + i);
        printf("grad x_untouched[%d] %.17g %.17g\n", i, x[i], 20.0 + i);
    }

    const double h = 1e-6;
    double op[N], om[N], xp[N], xm[N];
    for (int i = 0; i < N; i++) {
        op[i] = out0[i] + h * vout[i];
        om[i] = out0[i] - h * vout[i];
        xp[i] = x0[i] + h * vx[i];
        xm[i] = x0[i] - h * vx[i];
    }
    double rp = model(op, xp, a0 + h * va, N), rm = model(om, xm, a0 - h * va, N);
    printf("grad dr %.17g %.17g\n", dr, (rp - rm) / (2 * h));
    for (int i = 0; i < N; i++) printf("grad dout[%d] %.17g %.17g\n", i, dout[i], (op[i] - om[i]) / (2 * h));
    printf("grad dx[0] %.17g %.17g\n", dx[0], (xp[0] - xm[0]) / (2 * h));
    printf("grad dx[1] %.17g %.17g\n", dx[1], (xp[1] - xm[1]) / (2 * h));
    return 0;
}
