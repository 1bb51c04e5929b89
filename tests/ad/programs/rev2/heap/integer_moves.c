// Integer moves of floating-point data and of pointers: LLVM turns 8-byte memcpys
// into `load i64`/`store i64`, whatever the bytes are; type analysis gives them
// their real type (double, or a pointer whose shadow must move too).
// tol: rel=1e-12 abs=1e-14
// grads: 12
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

__attribute__((always_inline)) static inline void copy8(void *d, const void *s) { memcpy(d, s, 8); }

/* y[i] = x[perm[i]], moved as 8 raw bytes */
double gather(const double *x, const int *perm, int n) {
    double y[8];
    for (int i = 0; i < n; i++) copy8(&y[i], &x[perm[i]]);
    double s = 0;
    for (int i = 0; i < n; i++) s += y[i] * y[i] * (i + 1);
    return s;
}

/* the addresses &x[perm[i]] moved as 8 raw bytes into a table of pointers */
double through_pointers(const double *x, const int *perm, int n) {
    const double *table[8];
    for (int i = 0; i < n; i++) {
        const double *p = &x[perm[i]];
        copy8(&table[i], &p);
    }
    double s = 0;
    for (int i = 0; i < n; i++) s += *table[i] * *table[i] * *table[i] * (i + 1);
    return s;
}

int main(void) {
    enum { N = 6 };
    double x[N], dx[N] = {0}, dx2[N] = {0};
    int perm[N] = {3, 0, 5, 1, 4, 2};
    for (int i = 0; i < N; i++) x[i] = 0.7 * i - 1.1;
    __enzyme_autodiff((void *)gather, enzyme_dup, x, dx, enzyme_const, perm, enzyme_const, N);
    __enzyme_autodiff((void *)through_pointers, enzyme_dup, x, dx2, enzyme_const, perm, enzyme_const, N);
    for (int j = 0; j < N; j++) {
        double r = 0, r2 = 0;
        for (int i = 0; i < N; i++)
            if (perm[i] == j) {
                r += 2 * x[j] * (i + 1);
                r2 += 3 * x[j] * x[j] * (i + 1);
            }
        printf("grad gather.dx[%d] %.17g %.17g\n", j, dx[j], r);
        printf("grad pointers.dx[%d] %.17g %.17g\n", j, dx2[j], r2);
    }
    return 0;
}
