/* Calls a helper from another translation unit (helper.c). */
#ifndef REAL
#define REAL double
#endif
REAL weighted_dot(const REAL *w, const REAL *x, int n);

REAL regularized(const REAL *w, const REAL *x, int n, REAL lambda) {
    REAL s = 0;
    for (int i = 0; i < n; i++)
        s += w[i] * w[i];
    REAL d = weighted_dot(w, x, n) - 1;
    return d * d + lambda * s;
}
