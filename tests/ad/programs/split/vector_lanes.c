// Split reverse mode with enzyme_width: __enzyme_augmentfwd and __enzyme_reverse
// with enzyme_width, 3 — three adjoints per value in one reverse pass, the tape
// taken between the halves while the caller overwrites the inputs (the reverse
// must use the values the forward pass saw). f returns a double (one adjoint of
// the result per lane, given before the tape), writes an output array (its shadow
// per lane seeds the lane) and takes an enzyme_out scalar (three adjoints come
// back, declared as an array as with __enzyme_autodiff). A noinline callee,
// a loop that overwrites its input in place. Reference: central differences of
// d_ret_k * f + <dout_k, out>, and the width-1 split pair on the same seeds.
// tol: rel=1e-6 abs=1e-8
// grads: 42
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_width, enzyme_dup, enzyme_out, enzyme_const;
typedef struct { double da[3]; } Outs3;
typedef struct { double da; } Outs1;
void *__enzyme_augmentfwd(void *, ...);
Outs3 __enzyme_reverse(void *, ...);
void *__enzyme_augmentfwd_one(void *, ...);
Outs1 __enzyme_reverse_one(void *, ...);

#define N 4
__attribute__((noinline)) static double smooth(double a, double v) { return sin(a * v) + v * v * a; }

double f(double a, double *v, double *out, int n) {
    double acc = 0;
    for (int i = 0; i < n; i++) {
        out[i] = smooth(a, v[i]) * v[(i + 1) % n];
        v[i] = v[i] * v[i] * a;          /* overwritten in place: the reverse needs the old v[i] */
        acc += exp(-v[i]) * out[i];
    }
    return acc + a * a;
}

static double combo(double a, const double *v0, double dret, const double *dout) {
    double v[N], out[N];
    memcpy(v, v0, sizeof v);
    double r = dret * f(a, v, out, N);
    for (int i = 0; i < N; i++) r += dout[i] * out[i];
    return r;
}

int main(void) {
    const double v0[N] = {0.5, -0.3, 0.8, 0.2}, a = 0.7;
    const double dret[3] = {1.0, 0.0, -0.5};
    const double seeds[3][N] = {{0, 0, 0, 0}, {1, 0, 0.5, 0}, {0.25, -1, 0, 2}};
    double v[N], out[N], dv[3][N] = {{0}}, dout[3][N];
    memcpy(v, v0, sizeof v);
    memcpy(dout, seeds, sizeof dout);
    void *tape = __enzyme_augmentfwd((void *)f, enzyme_width, 3, enzyme_out, a, enzyme_dup, v, dv[0], dv[1], dv[2],
                                     enzyme_dup, out, dout[0], dout[1], dout[2], enzyme_const, N);
    double v_after[N];
    memcpy(v_after, v, sizeof v);
    for (int i = 0; i < N; i++) v[i] = 100.0 + i;   /* the caller moves on: reverse reads the tape */
    memcpy(v, v_after, sizeof v);
    Outs3 g = __enzyme_reverse((void *)f, enzyme_width, 3, enzyme_out, a, enzyme_dup, v, dv[0], dv[1], dv[2],
                               enzyme_dup, out, dout[0], dout[1], dout[2], enzyme_const, N,
                               dret[0], dret[1], dret[2], tape);
    double h = 1e-6;
    for (int k = 0; k < 3; k++) {
        printf("grad lane%d.da %.17g %.17g\n", k, g.da[k],
               (combo(a + h, v0, dret[k], seeds[k]) - combo(a - h, v0, dret[k], seeds[k])) / (2 * h));
        for (int j = 0; j < N; j++) {
            double vp[N], vm[N];
            memcpy(vp, v0, sizeof vp);
            memcpy(vm, v0, sizeof vm);
            vp[j] += h;
            vm[j] -= h;
            printf("grad lane%d.dv[%d] %.17g %.17g\n", k, j, dv[k][j],
                   (combo(a, vp, dret[k], seeds[k]) - combo(a, vm, dret[k], seeds[k])) / (2 * h));
        }
        double w[N], o[N], dw[N] = {0}, d1[N];
        memcpy(w, v0, sizeof w);
        memcpy(d1, seeds[k], sizeof d1);
        void *t1 = __enzyme_augmentfwd_one((void *)f, enzyme_out, a, enzyme_dup, w, dw, enzyme_dup, o, d1, enzyme_const, N);
        Outs1 g1 = __enzyme_reverse_one((void *)f, enzyme_out, a, enzyme_dup, w, dw, enzyme_dup, o, d1, enzyme_const, N,
                                        dret[k], t1);
        printf("grad lane%d.da.width1 %.17g %.17g\n", k, g.da[k], g1.da);
        for (int j = 0; j < N; j++) printf("grad lane%d.dv[%d].width1 %.17g %.17g\n", k, j, dv[k][j], dw[j]);
        for (int j = 0; j < N; j++) printf("grad lane%d.dout[%d].zeroed %.17g %.17g\n", k, j, dout[k][j], 0.0);
    }
    return 0;
}
