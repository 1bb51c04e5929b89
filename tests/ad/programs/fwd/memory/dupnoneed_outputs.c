// enzyme_dupnoneed in forward mode: the primal results written through the pointer
// are not needed, so a caller may pass NULL (Enzyme's sparse Hessians do). enzc skips
// the primal writes where the function only writes that memory (reads feed only its
// own `+=`), also in callees and in the forward derivative of a gradient
// (Hessian-vector products through __enzyme_autodiff's `dx[i] += a`). Where the
// function reads its output back (a product of two outputs) the writes are kept, and
// a valid buffer gives the right tangent.
// References: analytic derivatives.
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_dupnoneed, enzyme_const;
void __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff(void *, ...);

enum { N = 3 };

__attribute__((noinline)) static void add_sines(double *out, const double *x) {
    for (int i = 0; i < N; i++)
        out[i] += sin(x[(i + 1) % N]);
}

/* out_i = x_i^2 + sin(x_{i+1}) */
static void squares(const double *x, double *out) {
    for (int i = 0; i < N; i++)
        out[i] = x[i] * x[i];
    add_sines(out, x);
}

/* out_0 = x_0 x_1, out_1 = out_0^2 (reads its output back) */
static void reads_back(const double *x, double *out) {
    out[0] = x[0] * x[1];
    out[1] = out[0] * out[0];
}

/* e = sum x_i^3 x_{i+1}; its gradient's forward derivative is a Hessian-vector product */
static double cubic(const double *x) {
    double e = 0.0;
    for (int i = 0; i < N; i++)
        e += x[i] * x[i] * x[i] * x[(i + 1) % N];
    return e;
}
static void gradient(const double *x, double *g) {
    __enzyme_autodiff((void *)cubic, enzyme_dup, x, g);
}

int main(void) {
    double x[N] = {0.4, -1.1, 0.7}, v[N] = {1.0, 0.5, -2.0}, dout[N] = {0};
    __enzyme_fwddiff((void *)squares, enzyme_dup, x, v, enzyme_dupnoneed, (double *)0, dout);
    for (int i = 0; i < N; i++) {
        int j = (i + 1) % N;
        printf("grad squares[%d] %.17g %.17g\n", i, dout[i], 2 * x[i] * v[i] + cos(x[j]) * v[j]);
    }

    double out[2], dback[2] = {0};
    __enzyme_fwddiff((void *)reads_back, enzyme_dup, x, v, enzyme_dupnoneed, out, dback);
    double p = x[0] * x[1], dp = v[0] * x[1] + x[0] * v[1];
    printf("grad reads_back[0] %.17g %.17g\n", dback[0], dp);
    printf("grad reads_back[1] %.17g %.17g\n", dback[1], 2 * p * dp);

    double hv[N] = {0};
    __enzyme_fwddiff((void *)gradient, enzyme_dup, x, v, enzyme_dupnoneed, (double *)0, hv);
    for (int i = 0; i < N; i++) {
        int next = (i + 1) % N, prev = (i + N - 1) % N;
        /* g_i = 3 x_i^2 x_next + x_prev^3 */
        double ref = 6 * x[i] * x[next] * v[i] + 3 * x[i] * x[i] * v[next] + 3 * x[prev] * x[prev] * v[prev];
        printf("grad hessvec[%d] %.17g %.17g\n", i, hv[i], ref);
    }
    return 0;
}
