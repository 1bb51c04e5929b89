// Forward split mode with a tape through pointers loaded from memory: a linked list
// walked while its values are squared in place, and memcpy into the caller's work
// array, which is then scaled in place. The shadow list mirrors the list (its next
// pointers to shadow nodes), as forward mode needs. The caller overwrites the list
// values and the work array between the two calls. Against central finite
// differences; the memory must hold the primal's results once and stay as the
// caller set it after __enzyme_fwdsplit.
// tol: rel=1e-6 abs=1e-9
// grads: 16
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct node {
    double val;
    struct node *next;
} node;

void *__enzyme_augmentfwd(void *, ...);
double __enzyme_fwdsplit(void *, ...);
extern int enzyme_dup, enzyme_const;

#define L 3
#define M 3

double walk(node *n, double *work, const double *src, int m) {
    double s = 0;
    memcpy(work, src, m * sizeof *work);
    for (; n; n = n->next) {
        s += sin(n->val) * work[0];
        n->val = n->val * n->val;
    }
    for (int i = 0; i < m; i++) work[i] *= s;
    return s;
}

static void link(node *nodes, const double *vals) {
    for (int i = 0; i < L; i++) {
        nodes[i].val = vals[i];
        nodes[i].next = i + 1 < L ? &nodes[i + 1] : 0;
    }
}

int main(void) {
    const double v0[L] = {0.4, -1.1, 2.0}, dv[L] = {1.0, -0.5, 0.3};
    const double src[M] = {1.5, -0.7, 0.2}, dsrc[M] = {0.2, 1.0, -0.4};
    node nodes[L], dnodes[L], once[L];
    double work[M], dwork[M] = {9, 9, 9}, once_work[M];
    link(nodes, v0);
    link(dnodes, dv);
    link(once, v0);
    double r_once = walk(once, once_work, src, M);
    void *tape = __enzyme_augmentfwd((void *)walk, enzyme_dup, nodes, dnodes, enzyme_dup, work, dwork,
                                     enzyme_dup, src, dsrc, enzyme_const, M);
    for (int i = 0; i < L; i++) printf("grad val_once[%d] %.17g %.17g\n", i, nodes[i].val, once[i].val);
    for (int i = 0; i < M; i++) printf("grad work_once[%d] %.17g %.17g\n", i, work[i], once_work[i]);
    for (int i = 0; i < L; i++) nodes[i].val = 50.0 + i;
    for (int i = 0; i < M; i++) work[i] = 60.0 + i;
    double dr = __enzyme_fwdsplit((void *)walk, enzyme_dup, nodes, dnodes, enzyme_dup, work, dwork,
                                  enzyme_dup, src, dsrc, enzyme_const, M, tape);
    printf("grad val_untouched %.17g %.17g\n", nodes[0].val + nodes[1].val + nodes[2].val, 153.0);
    printf("grad work_untouched %.17g %.17g\n", work[0] + work[1] + work[2], 183.0);

    const double h = 1e-6;
    double vp[L], vm[L], sp[M], sm[M], wp[M], wm[M];
    node np[L], nm[L];
    for (int i = 0; i < L; i++) {
        vp[i] = v0[i] + h * dv[i];
        vm[i] = v0[i] - h * dv[i];
    }
    for (int i = 0; i < M; i++) {
        sp[i] = src[i] + h * dsrc[i];
        sm[i] = src[i] - h * dsrc[i];
    }
    link(np, vp);
    link(nm, vm);
    double rp = walk(np, wp, sp, M), rm = walk(nm, wm, sm, M);
    printf("grad dr %.17g %.17g\n", dr, (rp - rm) / (2 * h));
    printf("grad r_once %.17g %.17g\n", r_once, rp / 2 + rm / 2);
    for (int i = 0; i < L; i++) printf("grad dval[%d] %.17g %.17g\n", i, dnodes[i].val, (np[i].val - nm[i].val) / (2 * h));
    for (int i = 0; i < M; i++) printf("grad dwork[%d] %.17g %.17g\n", i, dwork[i], (wp[i] - wm[i]) / (2 * h));
    return 0;
}
