/* Numeric kernels of the kind enzc differentiates: dot products, matrix-vector and
   matrix-matrix products, norms, reductions with branches, a GMM-style log-likelihood
   and a small neural layer. Loops over doubles that vectorize at -O2/-O3. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double dot(const double *x, const double *y, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

static void matvec(const double *A, const double *x, double *y, int m, int n) {
    for (int i = 0; i < m; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += A[i * n + j] * x[j];
        y[i] = s;
    }
}

static void matmul(const double *A, const double *B, double *C, int n, int k, int m) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            double s = 0;
            for (int l = 0; l < k; l++)
                s += A[i * k + l] * B[l * m + j];
            C[i * m + j] = s;
        }
}

static double norm2(const double *x, int n) { return sqrt(dot(x, x, n)); }

static double relu_sum(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] > 0 ? x[i] : 0.01 * x[i];
    return s;
}

static double max_abs(const double *x, int n) {
    double m = 0;
    for (int i = 0; i < n; i++)
        if (fabs(x[i]) > m)
            m = fabs(x[i]);
    return m;
}

static double log_sum_exp(const double *x, int n) {
    double m = x[0];
    for (int i = 1; i < n; i++)
        if (x[i] > m)
            m = x[i];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += exp(x[i] - m);
    return m + log(s);
}

/* Diagonal-covariance GMM negative log-likelihood of n points in d dimensions. */
static double gmm_objective(int d, int k, int n, const double *alphas, const double *means,
                            const double *log_sigmas, const double *x) {
    double *tmp = malloc((size_t)k * sizeof(double));
    double total = 0;
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < k; c++) {
            double q = 0, sum_log = 0;
            for (int j = 0; j < d; j++) {
                double z = (x[i * d + j] - means[c * d + j]) * exp(-log_sigmas[c * d + j]);
                q += z * z;
                sum_log += log_sigmas[c * d + j];
            }
            tmp[c] = alphas[c] - sum_log - 0.5 * q;
        }
        total += log_sum_exp(tmp, k);
    }
    free(tmp);
    return -total + n * log_sum_exp(alphas, k);
}

static void dense_tanh(const double *W, const double *b, const double *x, double *y, int m, int n) {
    matvec(W, x, y, m, n);
    for (int i = 0; i < m; i++)
        y[i] = tanh(y[i] + b[i]);
}

static double rosenbrock(const double *x, int n) {
    double f = 0;
    for (int i = 0; i + 1 < n; i++) {
        double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
        f += 100 * a * a + b * b;
    }
    return f;
}

int main(int argc, char **argv) {
    (void)argv;
    enum { D = 3, K = 2, N = 4 };
    double A[9], B[9], C[9], x[3] = { 1, 2, (double)argc }, y[3];
    for (int i = 0; i < 9; i++) {
        A[i] = i * 0.5;
        B[i] = 1.0 / (i + 1);
    }
    matmul(A, B, C, 3, 3, 3);
    matvec(C, x, y, 3, 3);
    double alphas[K] = { 0.3, -0.2 }, means[K * D] = { 0, 0, 0, 1, 1, 1 };
    double ls[K * D] = { 0, 0.1, 0.2, -0.1, 0, 0.3 };
    double pts[N * D];
    for (int i = 0; i < N * D; i++)
        pts[i] = sin(i + argc);
    double h[3];
    dense_tanh(A, x, y, h, 3, 3);
    printf("%g %g %g %g %g %g %g\n", dot(x, y, 3), norm2(C, 9), relu_sum(pts, N * D), max_abs(pts, N * D),
           gmm_objective(D, K, N, alphas, means, ls, pts), h[2], rosenbrock(pts, N * D));
    return 0;
}
