// A custom gradient with a tape: normalize(in, out, n) returns void, so the
// augmented forward returns the tape (a malloc'd copy of the norm) and the reverse
// rule reads it, consumes d_out (zeroing it), adds into d_in and frees the tape.
// The rules count their calls; the counts are checked next to the gradient.
// tol: rel=1e-12 abs=1e-14
// grads: 7
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

static int aug_calls, rev_calls;

void normalize(const double *in, double *out, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += in[i] * in[i];
    double m = sqrt(s);
    for (int i = 0; i < n; i++) out[i] = in[i] / m;
}

void *aug_normalize(const double *in, double *d_in, double *out, double *d_out, int n) {
    (void)d_in;
    (void)d_out;
    aug_calls++;
    normalize(in, out, n);
    double *tape = malloc(sizeof(double));
    double s = 0;
    for (int i = 0; i < n; i++) s += in[i] * in[i];
    *tape = sqrt(s);
    return tape;
}

void rev_normalize(const double *in, double *d_in, double *out, double *d_out, int n,
                   void *tape) {
    rev_calls++;
    double m = *(double *)tape, dot = 0;
    for (int i = 0; i < n; i++) dot += d_out[i] * out[i];
    for (int i = 0; i < n; i++) {
        d_in[i] += (d_out[i] - dot * in[i] / m) / m;
        d_out[i] = 0.0;
    }
    free(tape);
}

void *__enzyme_register_gradient_normalize[3] = {(void *)normalize, (void *)aug_normalize,
                                                 (void *)rev_normalize};

double loss(const double *x, const double *w, int n) {
    double y[8];
    normalize(x, y, n);
    double s = 0;
    for (int i = 0; i < n; i++) s += w[i] * y[i];
    return s;
}

int main(void) {
    enum { N = 5 };
    double x[N] = {1.0, -2.0, 0.5, 3.0, -1.5}, dx[N] = {0}, w[N] = {0.3, 1.0, -0.7, 0.2, 0.9};
    __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, N);
    double s = 0, wx = 0;
    for (int i = 0; i < N; i++) { s += x[i] * x[i]; wx += w[i] * x[i]; }
    double m = sqrt(s);
    for (int j = 0; j < N; j++)
        printf("grad dx[%d] %.17g %.17g\n", j, dx[j], w[j] / m - wx * x[j] / (m * m * m));
    printf("grad aug_calls %d %d\n", aug_calls, 1);
    printf("grad rev_calls %d %d\n", rev_calls, 1);
    return 0;
}
