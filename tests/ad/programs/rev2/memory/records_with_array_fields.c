// An array of particles, each an id, two 3-vectors and a pointer to its mass,
// copied one record at a time with memcpy and read at run-time indices into the
// vectors. The vector index stays inside its field: the id and the mass pointer
// are not elements of `pos` or `vel` (type analysis once folded them together and
// refused the copy as records mixing pointers and doubles; Enzyme passes).
// Reference: analytic. E = sum_p sum_d (m_p/2) vel_pd^2 + pos_pd * pos_p(d+1 mod 3)
// tol: rel=1e-12 abs=1e-12
// grads: 16
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

typedef struct { int id; double pos[3]; double vel[3]; double *mass; } particle;

__attribute__((noinline)) double energy(const particle *ps, int n) {
    double e = 0;
    for (int i = 0; i < n; i++) {
        particle p;
        memcpy(&p, &ps[i], sizeof p);
        for (int d = 0; d < 3; d++)
            e += 0.5 * p.mass[0] * p.vel[d] * p.vel[d] + p.pos[d] * p.pos[(d + 1) % 3];
    }
    return e;
}

int main(void) {
    double m[2] = {2.0, 3.0}, dm[2] = {0};
    particle ps[2], dps[2];
    memset(dps, 0, sizeof dps);
    for (int i = 0; i < 2; i++) {
        ps[i].id = 10 + i;
        for (int d = 0; d < 3; d++) {
            ps[i].pos[d] = 1.0 + i - 0.5 * d;
            ps[i].vel[d] = 0.5 * (d + 1) - i;
        }
        ps[i].mass = &m[i];
        dps[i].mass = &dm[i];
    }
    __enzyme_autodiff((void *)energy, enzyme_dup, ps, dps, enzyme_const, 2);
    for (int i = 0; i < 2; i++) {
        double ke = 0;
        for (int d = 0; d < 3; d++) {
            const double *x = ps[i].pos;
            printf("grad pos[%d][%d] %.17g %.17g\n", i, d, dps[i].pos[d], x[(d + 1) % 3] + x[(d + 2) % 3]);
            printf("grad vel[%d][%d] %.17g %.17g\n", i, d, dps[i].vel[d], m[i] * ps[i].vel[d]);
            ke += 0.5 * ps[i].vel[d] * ps[i].vel[d];
        }
        printf("grad mass[%d] %.17g %.17g\n", i, dm[i], ke);
        printf("grad id[%d] %d %d\n", i, dps[i].id, 0);
    }
    return 0;
}
