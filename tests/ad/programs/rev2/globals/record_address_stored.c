// The address of a static record of parameters stored into a structure the
// derivative follows (`m->p = which ? &strong : &defaults`), then read through it by
// a noinline callee: the shadow structure's pointer must point at a shadow of the
// record. Writable records get a zeroed shadow of enzc's own (as newer Enzyme makes);
// `const` ones a zeroed sink global. The sink was a stack slot of the derived
// function: stored from a noinline callee's augmented forward pass, the pointer
// outlived it and the reverse pass added into a dead slot, a silently WRONG
// gradient at -O0 (13.77 for 12); the writable case was a compile-time error.
// Each function is differentiated twice in a row (what one call leaves in the
// shadows must not reach the next). Analytic gradients.
// tol: rel=1e-12 abs=1e-14
// grads: 16
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

struct Params { double a, b; };
struct Model { const struct Params *p; double *x; };

static struct Params defaults = {1.5, 2.0};
static struct Params strong = {3.0, 0.5};
static const struct Params fixed_defaults = {1.5, 2.0};
static const struct Params fixed_strong = {3.0, 0.5};

__attribute__((noinline)) double energy(const struct Model *m) {
    return m->p->a * m->x[0] * m->x[0] + m->p->b * sin(m->x[1]);
}

double writable(struct Model *m, int which) {
    m->p = which ? &strong : &defaults;
    return energy(m);
}

__attribute__((noinline)) void setup(struct Model *m, int which) {
    m->p = which ? &fixed_strong : &fixed_defaults;
    m->x[0] *= 2;
}

double constant(struct Model *m, int which) {
    setup(m, which);
    return energy(m) + m->p->a * m->x[1];
}

int main(void) {
    for (int which = 0; which < 2; which++) {
        const struct Params *q = which ? &strong : &defaults;
        for (int round = 0; round < 2; round++) {
            double x[2] = {0.5, 0.3}, dx[2] = {0};
            struct Model m = {0, x}, dm = {0, dx};
            __enzyme_autodiff((void *)writable, enzyme_dup, &m, &dm, enzyme_const, which);
            printf("grad writable%d.%d.x0 %.17g %.17g\n", which, round, dx[0], 2 * q->a * 0.5);
            printf("grad writable%d.%d.x1 %.17g %.17g\n", which, round, dx[1], q->b * cos(0.3));
            double y[2] = {0.5, 0.3}, dy[2] = {0};
            struct Model n = {0, y}, dn = {0, dy};
            __enzyme_autodiff((void *)constant, enzyme_dup, &n, &dn, enzyme_const, which);
            /* x0 doubled in setup: a (2 x0)^2 -> 8 a x0 */
            printf("grad constant%d.%d.x0 %.17g %.17g\n", which, round, dy[0], 8 * q->a * 0.5);
            printf("grad constant%d.%d.x1 %.17g %.17g\n", which, round, dy[1], q->b * cos(0.3) + q->a);
        }
    }
    return 0;
}
