// A time loop whose state lives partly in a file-scope array written every step
// (Fortran COMMON-block style), its shadow registered in C with
// __enzyme_shadow_global_*. The gradient with respect to u, and the one with
// respect to the global's value on entry (left in d_state), match central
// finite differences. d_state is zeroed before each gradient, as a dup buffer is.
// tol: rel=1e-6 abs=1e-9
// grads: 8
#include <math.h>
#include <stdio.h>

#define N 4
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

static double state[N];
static double d_state[N];
void *__enzyme_shadow_global_state[2] = {(void *)&state, (void *)&d_state};

__attribute__((noinline)) static void step(int i, double *u) {
    for (int k = 0; k < N; k++) {
        double t = u[k] + 0.1 * sin(state[k] + 0.2 * i) - 0.05 * u[(k + 1) % N];
        state[k] = 0.8 * state[k] + 0.2 * t * t;
        u[k] = t;
    }
}

static double run(double *u, int steps) {
    for (int i = 0; i < steps; i++) step(i, u);
    double s = 0;
    for (int k = 0; k < N; k++) s += u[k] * u[k] + state[k];
    return s;
}

static void init(double *u, const double *s0) {
    for (int k = 0; k < N; k++) { u[k] = 1.0 + 0.3 * k; state[k] = s0[k]; }
}

int main(void) {
    const double s0[N] = {0.1, -0.2, 0.3, 0.05};
    double u[N], du[N] = {0};
    for (int k = 0; k < N; k++) d_state[k] = 0;
    init(u, s0);
    __enzyme_autodiff((void *)run, enzyme_dup, u, du, enzyme_const, 12);
    double ds[N];
    for (int k = 0; k < N; k++) ds[k] = d_state[k];
    for (int k = 0; k < N; k++) {
        double v[N], s[N], h = 1e-6;
        for (int j = 0; j < N; j++) s[j] = s0[j];
        init(v, s); v[k] += h; double up = run(v, 12);
        init(v, s); v[k] -= h; double down = run(v, 12);
        printf("grad du[%d] %.17g %.17g\n", k, du[k], (up - down) / (2 * h));
        s[k] += h; init(v, s); up = run(v, 12);
        s[k] -= 2 * h; init(v, s); down = run(v, 12);
        printf("grad dstate[%d] %.17g %.17g\n", k, ds[k], (up - down) / (2 * h));
    }
    return 0;
}
