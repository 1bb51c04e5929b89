// The seeds' sumList: a malloc'd linked list built by the caller, with a shadow list
// of the same shape whose values receive the gradient.
// tol: rel=1e-12 abs=1e-14
// grads: 10
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

struct n {
    double value;
    struct n *next;
};

double sumList(const struct n *node) {
    double sum = 0;
    while (node) {
        sum += node->value * node->value * 0.5 + exp(node->value);
        node = node->next;
    }
    return sum;
}

int main(void) {
    enum { N = 10 };
    struct n *list = NULL, *shadow = NULL;
    for (int i = 0; i < N; i++) {
        struct n *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        a->value = 0.1 * i - 0.4;
        a->next = list;
        b->value = 0.0;
        b->next = shadow;
        list = a;
        shadow = b;
    }
    __enzyme_autodiff((void *)sumList, enzyme_dup, list, shadow);
    int i = 0;
    for (struct n *a = list, *b = shadow; a; a = a->next, b = b->next, i++)
        printf("grad dnode[%d] %.17g %.17g\n", i, b->value, a->value + exp(a->value));
    while (list) {
        struct n *a = list->next, *b = shadow->next;
        free(list);
        free(shadow);
        list = a;
        shadow = b;
    }
    return 0;
}
