// Scientific C in one function, as users write it: an RK4 integrator taking the
// right-hand side as a function pointer and its parameters as `void *` (a struct of
// doubles cast back), qsort of records by a computed key, a linked list built with
// malloc and freed while summed, C99 complex arithmetic (cexp), and a struct with a
// flexible array member. Gradient with respect to the ODE's stiffness and damping
// and a phase. (ClangEnzyme-19: "No augmented forward pass found for qsort" and for
// cexp.) Reverse mode.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 3
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);

typedef void (*rhs_fn)(double t, const double *y, double *dy, void *params);
typedef struct { double k, c; int n; } Osc;
static void osc(double t, const double *y, double *dy, void *params) {
    const Osc *p = params;
    dy[0] = y[1];
    dy[1] = -p->k * y[0] - p->c * y[1] + 0.1 * sin(t);
}
static void rk4(rhs_fn f, double *y, int n, double t0, double h, int steps, void *params) {
    double *k1 = malloc(4 * n * sizeof *k1), *k2 = k1 + n, *k3 = k2 + n, *k4 = k3 + n;
    double *tmp = malloc(n * sizeof *tmp);
    for (int s = 0; s < steps; s++) {
        double t = t0 + s * h;
        f(t, y, k1, params);
        for (int i = 0; i < n; i++) tmp[i] = y[i] + 0.5 * h * k1[i];
        f(t + 0.5 * h, tmp, k2, params);
        for (int i = 0; i < n; i++) tmp[i] = y[i] + 0.5 * h * k2[i];
        f(t + 0.5 * h, tmp, k3, params);
        for (int i = 0; i < n; i++) tmp[i] = y[i] + h * k3[i];
        f(t + h, tmp, k4, params);
        for (int i = 0; i < n; i++) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
    free(tmp);
    free(k1);
}
typedef struct { double key; double w; } Item;
static int cmp(const void *a, const void *b) {
    double x = ((const Item *)a)->key, y = ((const Item *)b)->key;
    return (x > y) - (x < y);
}
typedef struct Node { double v; struct Node *next; } Node;
typedef struct { int n; double data[]; } Buf;

double f(const double *x) {
    Osc p = {x[0], x[1], 2};
    double y[2] = {1.0, 0.0};
    rk4(osc, y, 2, 0.0, 0.05, 40, &p);
    Item it[5];
    for (int i = 0; i < 5; i++) it[i] = (Item){cos(3.0 * i + x[2]), x[i % 3] * (i + 1)};
    qsort(it, 5, sizeof(Item), cmp);
    double s = y[0] * y[0] + y[1];
    for (int i = 0; i < 5; i++) s += it[i].w * (i + 1);
    Node *head = NULL;
    for (int i = 0; i < 4; i++) { Node *nd = malloc(sizeof *nd); nd->v = x[i % 3] * i; nd->next = head; head = nd; }
    for (Node *q = head; q; ) { s += q->v * q->v; Node *nx = q->next; free(q); q = nx; }
    double complex z = x[0] + I * x[1];
    z = cexp(z * z) / (1.0 + z);
    s += creal(z) + cimag(z);
    Buf *b = malloc(sizeof(Buf) + 3 * sizeof(double));
    b->n = 3;
    for (int i = 0; i < b->n; i++) b->data[i] = x[i] * x[i];
    for (int i = 0; i < b->n; i++) s += sqrt(b->data[i] + 1);
    free(b);
    return s;
}
int main(void) {
    double x[3] = {1.3, 0.2, 0.4}, dx[3] = {0}, h = 1e-6;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
    for (int i = 0; i < 3; i++) {
        double xp[3], xm[3];
        memcpy(xp, x, sizeof x); memcpy(xm, x, sizeof x);
        xp[i] += h; xm[i] -= h;
        printf("grad x%d %.17g %.17g\n", i, dx[i], (f(xp) - f(xm)) / (2 * h));
    }
    return 0;
}
