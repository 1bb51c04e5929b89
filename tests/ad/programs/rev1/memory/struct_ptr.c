// A struct with double fields (and an int and an inner array) passed by pointer with
// a shadow struct; the int field carries no derivative.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

struct Particle {
    double mass;
    int steps;
    double pos[3];
    double charge;
};

double energy(const struct Particle *p) {
    double r2 = 0;
    for (int i = 0; i < 3; i++) r2 += p->pos[i] * p->pos[i];
    return p->steps * p->mass * r2 + p->charge / sqrt(r2);
}

int main(void) {
    struct Particle p = {2.0, 3, {1.0, -0.5, 0.25}, 0.7}, dp;
    memset(&dp, 0, sizeof dp);
    __enzyme_autodiff((void *)energy, enzyme_dup, &p, &dp);
    double r2 = 1.0 + 0.25 + 0.0625, r = sqrt(r2);
    printf("grad d_mass %.17g %.17g\n", dp.mass, 3 * r2);
    printf("grad d_charge %.17g %.17g\n", dp.charge, 1 / r);
    for (int i = 0; i < 3; i++)
        printf("grad d_pos[%d] %.17g %.17g\n", i, dp.pos[i],
               2 * p.pos[i] * (3 * p.mass - 0.5 * p.charge / (r2 * r)));
    printf("grad d_steps_untouched %.17g %.17g\n", (double)dp.steps, 0.0);
    return 0;
}
