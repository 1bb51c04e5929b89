/* Loop nests: a 2-D heat-equation stencil with restrict pointers, prefix sums
   (loop-carried dependence), a triangular solve, a histogram with data-dependent
   indices, and a loop with an early exit; the -O3 vectorizer's favourite inputs. */
#include <stdio.h>
#include <stdlib.h>

static void heat_step(int nx, int ny, const double *restrict u, double *restrict out, double alpha) {
    for (int i = 1; i < nx - 1; i++)
        for (int j = 1; j < ny - 1; j++) {
            int c = i * ny + j;
            out[c] = u[c] + alpha * (u[c - 1] + u[c + 1] + u[c - ny] + u[c + ny] - 4 * u[c]);
        }
}

static void prefix_sum(const float *in, float *out, int n) {
    float s = 0;
    for (int i = 0; i < n; i++) {
        s += in[i];
        out[i] = s;
    }
}

static void forward_subst(int n, const double L[n][n], const double *b, double *x) {
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int j = 0; j < i; j++)
            s -= L[i][j] * x[j];
        x[i] = s / L[i][i];
    }
}

static void histogram(const unsigned char *data, int n, unsigned *bins) {
    for (int i = 0; i < 16; i++)
        bins[i] = 0;
    for (int i = 0; i < n; i++)
        bins[data[i] >> 4]++;
}

static int find_first_above(const double *x, int n, double t) {
    for (int i = 0; i < n; i++)
        if (x[i] > t)
            return i;
    return -1;
}

static void saxpy_int(int n, int a, const int *restrict x, int *restrict y) {
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}

static double jacobi_sweep(int n, double *restrict x, const double *restrict rhs, int iters) {
    double *tmp = malloc((size_t)n * sizeof(double));
    double res = 0;
    for (int it = 0; it < iters; it++) {
        res = 0;
        for (int i = 0; i < n; i++) {
            double l = i > 0 ? x[i - 1] : 0, r = i < n - 1 ? x[i + 1] : 0;
            tmp[i] = 0.5 * (rhs[i] + l + r);
            double d = tmp[i] - x[i];
            res += d * d;
        }
        for (int i = 0; i < n; i++)
            x[i] = tmp[i];
    }
    free(tmp);
    return res;
}

int main(int argc, char **argv) {
    (void)argv;
    enum { NX = 12, NY = 10 };
    static double u[NX * NY], v[NX * NY];
    u[(NX / 2) * NY + NY / 2] = 100.0 * argc;
    for (int s = 0; s < 10; s++) {
        heat_step(NX, NY, u, v, 0.1);
        heat_step(NX, NY, v, u, 0.1);
    }
    float in[9] = { 1, 2, 3, 4, 5, 6, 7, 8, (float)argc }, out[9];
    prefix_sum(in, out, 9);
    double L[3][3] = { { 2, 0, 0 }, { 1, 3, 0 }, { 4, 5, 6 } }, b[3] = { 2, 5, (double)argc }, x[3];
    forward_subst(3, L, b, x);
    unsigned char data[64];
    for (int i = 0; i < 64; i++)
        data[i] = (unsigned char)(i * 37 + argc);
    unsigned bins[16];
    histogram(data, 64, bins);
    int xi[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, yi[8] = { 0 };
    saxpy_int(8, argc, xi, yi);
    double jx[6] = { 0 }, jr[6] = { 1, 1, 1, 1, 1, (double)argc };
    printf("%g %g %g %u %d %d %g\n", u[(NX / 2) * NY + NY / 2 + 1], (double)out[8], x[2], bins[3],
           find_first_above(u, NX * NY, 1.0), yi[7], jacobi_sweep(6, jx, jr, 20));
    return 0;
}
