// Records holding pointers into active memory copied with memcpy (as C++ copies
// iterators and small objects): the forward pass must copy the pointers'
// shadows along, or the copy's shadow pointer is null (a crash or a lost
// adjoint). One record holds only a pointer, one a pointer, a double and an int.
// Reference: analytic.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <stdio.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);

typedef struct { double *p; } Cursor;
typedef struct { double *p; double w; int k; } Rec;

__attribute__((noinline)) double step_back_and_read(const Cursor *c) {
    Cursor tmp;
    memcpy(&tmp, c, sizeof tmp);
    tmp.p--;
    return *tmp.p;
}

__attribute__((noinline)) double weighted(const Rec *r) { return *r->p * r->w * r->k; }

double f(double *x, double w, int n) {
    double s = 0;
    Cursor c = {x + n};
    for (int i = 0; i < n; i++) {
        s = s * 0.5 + step_back_and_read(&c) * x[0];
        c.p--;
    }
    Rec a = {x + 1, w, 3}, b;
    memcpy(&b, &a, sizeof b);
    b.p += 1;
    return s + weighted(&b) + weighted(&a);
}

int main(void) {
    double x[3] = {1, 2, 3}, dx[3] = {0}, w = 0.5;
    double dw = __enzyme_autodiff((void *)f, x, dx, w, 3);
    /* s = ((x2 x0) 0.5 + x1 x0) 0.5 + x0 x0 = 0.25 x0 x2 + 0.5 x0 x1 + x0^2;
     * plus 3 w x2 + 3 w x1 */
    printf("grad dx[0] %.17g %.17g\n", dx[0], 0.25 * x[2] + 0.5 * x[1] + 2 * x[0]);
    printf("grad dx[1] %.17g %.17g\n", dx[1], 0.5 * x[0] + 3 * w);
    printf("grad dx[2] %.17g %.17g\n", dx[2], 0.25 * x[0] + 3 * w);
    printf("grad dw %.17g %.17g\n", dw, 3 * x[2] + 3 * x[1]);
    return 0;
}
