/* Fixed arrays, multi-dimensional arrays, variable-length arrays and alloca:
   exercises stacksave/stackrestore, dynamic allocas and GEPs with many indices. */
#include <stdio.h>
#include <stdlib.h>

#define N 8

static int table[N][N];
static const double weights[4] = { 0.1, 0.2, 0.3, 0.4 };

static void fill(int n, int m, double a[n][m]) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            a[i][j] = (double)(i * m + j) * weights[(i + j) % 4];
}

static double trace(int n, double a[n][n]) {
    double t = 0;
    for (int i = 0; i < n; i++)
        t += a[i][i];
    return t;
}

static double vla_sum(int n) {
    double buf[n][n];
    fill(n, n, buf);
    double s = trace(n, buf);
    for (int k = 0; k < n; k++) {
        double row[k + 1];
        for (int j = 0; j <= k; j++)
            row[j] = buf[k][j];
        for (int j = 0; j <= k; j++)
            s += row[j] / (j + 1);
    }
    return s;
}

static int *scratch(size_t n) {
    int *p = __builtin_alloca(n * sizeof(int));
    for (size_t i = 0; i < n; i++)
        p[i] = (int)(i * i);
    int *out = malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++)
        out[i] = p[n - 1 - i];
    return out;
}

static void transpose(int a[N][N]) {
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++) {
            int t = a[i][j];
            a[i][j] = a[j][i];
            a[j][i] = t;
        }
}

int main(int argc, char **argv) {
    (void)argv;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            table[i][j] = i * 10 + j;
    transpose(table);
    int n = 3 + argc;
    double s = vla_sum(n);
    int *p = scratch((size_t)n * 2);
    char names[3][6] = { "alpha", "beta", "gamma" };
    int cube[2][3][4] = { { { 1, 2, 3, 4 }, { 5 } }, { [2] = { [3] = 9 } } };
    long acc = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++)
                acc += cube[i][j][k] * (k + 1);
    printf("%d %g %d %s %ld\n", table[1][2], s, p[1], names[argc % 3], acc);
    free(p);
    return 0;
}
