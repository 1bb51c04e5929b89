// Runtime activity (enzyme_runtime_activity): a struct holds a const pointer beside an
// active one, and its shadow holds the const pointer itself (shadow == primal: inactive
// at run time). Reverse and forward mode; the struct is also copied (memcpy of pointer
// shadows) before use. Without the marker the reverse pass would add adjoints into the
// const data itself; here they must be dropped: the gradient matches central
// differences and c is unchanged after the derivative calls.
// tol: rel=1e-6 abs=1e-9
// grads: 12
#include <stdio.h>
#include <string.h>
#include <enzyme/enzyme.h>

enum { N = 4 };
struct Data { const double *c; double *x; int n; };

__attribute__((noinline)) static double weigh(const struct Data *d) {
    double s = 0;
    for (int i = 0; i < d->n; i++) s += d->c[i] * d->x[i] * d->x[i] + d->c[(i + 1) % d->n] * d->x[i];
    return s;
}

double loss(struct Data *d) {
    struct Data copy;
    memcpy(&copy, d, sizeof copy);
    return weigh(&copy) * 0.5 + d->x[0] * d->c[1];
}

static double c[N] = {1.5, -2.0, 0.75, 3.0}, x[N] = {0.5, -1.0, 2.0, 0.25};

static double ev(void) {
    struct Data d = {c, x, N};
    return loss(&d);
}

int main(void) {
    double c0[N], dx[N] = {0};
    memcpy(c0, c, sizeof c);
    struct Data d = {c, x, N}, dd = {c, dx, N};
    __enzyme_autodiff((void *)loss, enzyme_runtime_activity, enzyme_dup, &d, &dd);
    for (int i = 0; i < N; i++) {
        double h = 1e-6, saved = x[i];
        x[i] = saved + h;
        double up = ev();
        x[i] = saved - h;
        double down = ev();
        x[i] = saved;
        printf("grad rev_x%d %.17g %.17g\n", i, dx[i], (up - down) / (2 * h));
    }
    for (int i = 0; i < N; i++) {
        double tx[N] = {0};
        tx[i] = 1;
        struct Data t = {c, tx, N};  /* tangent struct: the const pointer is its own shadow */
        double dt = __enzyme_fwddiff((void *)loss, enzyme_dup, &d, &t, enzyme_runtime_activity);
        printf("grad fwd_x%d %.17g %.17g\n", i, dt, dx[i]);
    }
    for (int i = 0; i < N; i++) printf("grad c%d_unchanged %.17g %.17g\n", i, c[i], c0[i]);
    return 0;
}
