// Sorting and searching in differentiated code with the C library's qsort, qsort_r and
// bsearch (a pointer into the sorted array, read at it and after it): a trimmed
// mean and a weighted median-like sum of doubles sorted by value (the derivative of
// sorted[i] is that of the element that lands there), records sorted by an active key
// with an int tie-breaker and a pointer riding along, a qsort_r whose comparator
// reads its argument (a sort direction), and a sort inside a helper that is called
// twice. They call the comparator from the C library, which the AD cannot see: it was
// "cannot differentiate call to external function 'qsort'" (ClangEnzyme-19: "No
// augmented forward pass found for qsort"). The sort is now a permutation of
// indices found with the user's comparator (inactive) and a gather of the elements by
// memcpy, which the AD differentiates; bsearch an index (inactive) and a pointer
// computed from it. Reverse and forward mode.
// Reference: central finite differences (the point has no ties).
// tol: rel=1e-6 abs=1e-8
// grads: 12
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { N = 6 };

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct { double key; int group; const double *scale; double w; } Item;

static int by_group_then_key(const void *a, const void *b) {
    const Item *p = a, *q = b;
    if (p->group != q->group) return p->group - q->group;
    return (p->key > q->key) - (p->key < q->key);
}

static int by_direction(const void *a, const void *b, void *direction) {
    return *(const int *)direction * by_value(a, b);
}

__attribute__((noinline)) static double trimmed_mean(const double *x, int n) {
    double *v = malloc(n * sizeof *v);
    memcpy(v, x, n * sizeof *v);
    qsort(v, n, sizeof *v, by_value);
    double s = 0;
    for (int i = 1; i + 1 < n; i++) s += v[i];
    free(v);
    return s / (n - 2);
}

double f(const double *x, int n) {
    double s = trimmed_mean(x, n) + 2 * trimmed_mean(x + 1, n - 1);
    double sq[N];
    for (int i = 0; i < n; i++) sq[i] = sin(x[i]) * x[i];
    qsort(sq, n, sizeof(double), by_value);
    for (int i = 0; i < n; i++) s += sq[i] * (i + 1);
    double probe = sq[n / 2];
    const double *hit = bsearch(&probe, sq, n, sizeof(double), by_value);
    const double absent = 100.0;
    s += (hit ? hit[0] * hit[1] : 0.0) + (bsearch(&absent, sq, n, sizeof(double), by_value) ? 1.0 : 0.0);
    static const double scales[2] = {0.5, 3.0};
    Item items[N];
    for (int i = 0; i < n; i++)
        items[i] = (Item){cos(x[i]) + 0.1 * i, i % 2, &scales[i % 2], x[(i + 1) % n] * x[i]};
    qsort(items, n, sizeof(Item), by_group_then_key);
    for (int i = 0; i < n; i++) s += items[i].w * *items[i].scale * (i + 1) + items[i].key * i;
    int down = -1;
    double e[N];
    for (int i = 0; i < n; i++) e[i] = exp(0.3 * x[i]);
    qsort_r(e, n, sizeof(double), by_direction, &down);
    for (int i = 0; i < n; i++) s += e[i] * e[i] * (n - i);
    return s;
}

int main(void) {
    double x[N] = {0.31, -1.22, 0.73, 2.04, -0.45, 1.17}, dx[N] = {0}, h = 1e-6;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
    for (int i = 0; i < N; i++) {
        double xp[N], xm[N];
        memcpy(xp, x, sizeof x);
        memcpy(xm, x, sizeof x);
        xp[i] += h;
        xm[i] -= h;
        double fd = (f(xp, N) - f(xm, N)) / (2 * h), t[N] = {0};
        t[i] = 1;
        printf("grad x%d %.17g %.17g\n", i, dx[i], fd);
        printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, N), fd);
    }
    return 0;
}
