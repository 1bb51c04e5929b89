// A linked list built with malloc inside the differentiated function from the
// active inputs, traversed, then freed: shadow nodes are created by the engine.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

struct cell {
    double v;
    struct cell *next;
};

double through_list(const double *x, int n) {
    struct cell *head = NULL;
    for (int i = 0; i < n; i++) {
        struct cell *c = malloc(sizeof *c);
        c->v = sin(x[i]);
        c->next = head;
        head = c;
    }
    double s = 0, w = 1.0;
    for (struct cell *c = head; c; c = c->next) {
        s += w * c->v * c->v;
        w += 1.0;
    }
    while (head) {
        struct cell *next = head->next;
        free(head);
        head = next;
    }
    return s;
}

int main(void) {
    enum { N = 6 };
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++) x[i] = 0.3 * i + 0.2;
    __enzyme_autodiff((void *)through_list, enzyme_dup, x, dx, enzyme_const, N);
    for (int i = 0; i < N; i++) { /* x[i] is at position N-1-i, weight N-i */
        double w = N - i;
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], w * 2 * sin(x[i]) * cos(x[i]));
    }
    return 0;
}
