// A buffer grown by realloc in every iteration of a loop (from NULL, as
// `a = realloc(a, ...)` idioms do, and from a first malloc), then read in a second
// loop: the adjoints of elements stored in early iterations must move back
// through every realloc. (Each realloc once had two shadow blocks: the stores
// wrote one chain, the reverse moved adjoints along the other.)
// Reference: analytic, s = sum_i (x (i+1))^2 + y^3 sum_i (i+1) => ds/dx = 2x sum (i+1)^2.
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_const;
double __enzyme_autodiff(void *, ...);

double grow_from_null(double x, double y, int n) {
    double *a = NULL, s = 0;
    for (int i = 0; i < n; i++) {
        a = realloc(a, sizeof(double) * (i + 1));
        a[i] = x * (i + 1);
    }
    for (int i = 0; i < n; i++) s += a[i] * a[i] + y * y * y * (i + 1);
    free(a);
    return s;
}

double grow_from_malloc(double x, double y, int n) {
    double *a = malloc(sizeof(double)), s = 0;
    a[0] = y;
    for (int i = 1; i < n; i++) {
        a = realloc(a, sizeof(double) * (i + 1));
        a[i] = x * a[i - 1];
    }
    for (int i = 0; i < n; i++) s += a[i];
    free(a);
    return s; /* y (1 + x + ... + x^(n-1)) */
}

int main(void) {
    for (int n = 1; n <= 4; n += 3) {
        double x = 1.5, y = 0.75, sq = 0, tri = 0, geo = 0, dgeo = 0;
        for (int i = 0; i < n; i++) {
            sq += (i + 1) * (i + 1);
            tri += i + 1;
        }
        for (int i = 0; i < n; i++) {
            double p = 1;
            for (int j = 0; j < i; j++) p *= x;
            geo += p;
            if (i > 0) dgeo += i * p / x;
        }
        typedef struct { double dx, dy; } Pair;
        Pair (*grad)(void *, double, double, int, int) = (Pair(*)(void *, double, double, int, int))__enzyme_autodiff;
        Pair a = grad((void *)grow_from_null, x, y, enzyme_const, n);
        printf("grad null_dx[n=%d] %.17g %.17g\n", n, a.dx, 2 * x * sq);
        printf("grad null_dy[n=%d] %.17g %.17g\n", n, a.dy, 3 * y * y * tri);
        Pair b = grad((void *)grow_from_malloc, x, y, enzyme_const, n);
        printf("grad malloc_dx[n=%d] %.17g %.17g\n", n, b.dx, y * dgeo);
        printf("grad malloc_dy[n=%d] %.17g %.17g\n", n, b.dy, geo);
    }
    return 0;
}
