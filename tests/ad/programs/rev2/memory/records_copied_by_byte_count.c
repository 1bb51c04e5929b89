// Records with padding copied by a byte count the caller passes (memcpy(q, p,
// bytes)): nothing shows the count is a whole number of records, but the program
// indexes the destination as `struct P` records. The copy is taken as records and
// the reverse pass checks at run time that the count is whole records (a copy of
// part of a record stops the program with a message: tests/ad/test_partial_copies.py).
// The engine before this refused it ("cannot deduce the type of the memory copied").
// Reference: analytic. f = sum over the copied records of x_i^2 (k_i + 1)
// tol: rel=1e-12 abs=1e-12
// grads: 6
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

struct P { double x; int k; };

__attribute__((noinline)) double f(const struct P *p, int n, long bytes) {
    struct P *q = malloc(n * sizeof *q);
    memset(q, 0, n * sizeof *q);
    memcpy(q, p, bytes);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += q[i].x * q[i].x * (q[i].k + 1);
    free(q);
    return s;
}

int main(int argc, char **argv) {
    long whole = argc > 1 ? atol(argv[1]) : 3;  /* records copied; a fraction: the run-time check */
    double records = argc > 2 ? atof(argv[2]) : (double)whole;
    struct P p[3] = {{1.5, 0}, {-0.5, 1}, {2.0, 2}}, dp[3];
    for (long copied = whole - 1; copied <= whole; copied++) {
        long bytes = copied == whole ? (long)(records * sizeof(struct P)) : copied * (long)sizeof(struct P);
        memset(dp, 0, sizeof dp);
        __enzyme_autodiff((void *)f, enzyme_dup, p, dp, enzyme_const, 3, enzyme_const, bytes);
        for (int i = 0; i < 3; i++)
            printf("grad x[%d]/%ld %.17g %.17g\n", i, copied, dp[i].x, i < copied ? 2 * p[i].x * (p[i].k + 1) : 0.0);
        fflush(stdout);  /* before a run-time check may stop the next call */
    }
    return 0;
}
