// A binary tree of malloc'd nodes (built by the caller) with a shadow tree of the same
// shape; a recursive weighted sum of squares over it.
// tol: rel=1e-12 abs=1e-14
// grads: 15
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

typedef struct Node {
    double value;
    struct Node *left, *right;
} Node;

double tree_sum(const Node *t) {
    if (!t) return 0.0;
    return t->value * t->value + 0.5 * (tree_sum(t->left) + tree_sum(t->right));
}

/* a complete tree of `depth` levels in heap order; shadow nodes mirror the primal */
static Node *build(double *vals, int i, int n, Node **shadow, int *count) {
    if (i >= n) { *shadow = NULL; return NULL; }
    Node *p = malloc(sizeof *p), *s = calloc(1, sizeof *s);
    p->value = vals[i];
    (*count)++;
    p->left = build(vals, 2 * i + 1, n, &s->left, count);
    p->right = build(vals, 2 * i + 2, n, &s->right, count);
    *shadow = s;
    return p;
}

static void collect(const Node *s, int i, double *out) {
    if (!s) return;
    out[i] = s->value;
    collect(s->left, 2 * i + 1, out);
    collect(s->right, 2 * i + 2, out);
}

static void release(Node *t) {
    if (!t) return;
    release(t->left);
    release(t->right);
    free(t);
}

int main(void) {
    enum { N = 15 };
    double vals[N], grads[N];
    int count = 0;
    for (int i = 0; i < N; i++) vals[i] = cos(0.7 * i);
    Node *shadow;
    Node *root = build(vals, 0, N, &shadow, &count);
    __enzyme_autodiff((void *)tree_sum, enzyme_dup, root, shadow);
    collect(shadow, 0, grads);
    for (int i = 0; i < N; i++) {
        int depth = 0;
        for (int j = i; j > 0; j = (j - 1) / 2) depth++;
        printf("grad dnode[%d] %.17g %.17g\n", i, grads[i], 2 * vals[i] * pow(0.5, depth));
    }
    release(root);
    release(shadow);
    return count == N ? 0 : 1;
}
