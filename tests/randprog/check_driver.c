/* randprog measurement driver (inlined into every generated translation unit).
 *
 * For one random function f: R^nu -> R^no (inputs: x[] then the scalars; outputs:
 * y[] then the result) at one input point, it prints everything the oracle in
 * oracle.py judges:
 *   o  i v            primal outputs (plain call)
 *   fd i j v err      d o_i / d u_j by Ridders' extrapolation of central differences
 *                     from step h down, and its error estimate
 *   fd2 i j v err     the same from the much smaller step h2 down (when h2 > 0): a
 *                     second opinion where the steps from h straddle a kink
 *   fwd i j v         forward mode (__enzyme_fwddiff), tangent e_j: column j
 *   pf j i v          the primal output y_i computed by that forward call
 *   rev s j v         reverse mode (__enzyme_autodiff), seed y = e_s (s < ny) or 0
 *                     (s = ny, only the result seeded): gradient entry j
 *   pr s i v          the primal output y_i computed by that reverse call
 *   dot t lhs rhs     <J v, w> from a forward call with tangent v, <v, J^T w> from a
 *   dv t j v / dw t i v    reverse call with seed w (w of the result is 1), and v, w
 * A function built in one mode only (the other rejected) has a NULL adaptor for the
 * other: its lines are left out.
 * The point: inputs drawn from [-1.2, -0.3] U [0.3, 1.2], n from [1, n_max], by a
 * generator seeded with (seed, point). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RP_MAX 16

typedef void (*rp_eval_fn)(const double *u, int n, double *o);
typedef void (*rp_fwd_fn)(const double *u, const double *du, int n, double *o, double *dout);
typedef void (*rp_rev_fn)(const double *u, const double *w, int n, double *o, double *gu);

struct rp_entry {
    const char *name;
    int nu, ny, has_ret, n_max;
    double h, h2;
    rp_eval_fn eval;
    rp_fwd_fn fwd;
    rp_rev_fn rev;
    unsigned long long seed;
};

static unsigned long long rp_state;

static double rp_uniform(void) {
    rp_state ^= rp_state << 13;
    rp_state ^= rp_state >> 7;
    rp_state ^= rp_state << 17;
    return (double)(rp_state >> 11) * 0x1.0p-53;
}

static double rp_input(void) {
    double v = 0.3 + 0.9 * rp_uniform();
    return rp_uniform() < 0.5 ? -v : v;
}

static void rp_print(const char *tag, int a, int b, double v) {
    if (b < 0)
        printf("%s %d %.17g\n", tag, a, v);
    else
        printf("%s %d %d %.17g\n", tag, a, b, v);
}

/* Ridders' extrapolation of central differences (Numerical Recipes' dfridr) for
 * d o_i / d u_j: steps h0, h0/1.4, h0/1.4^2, ... with Richardson's tableau; the
 * estimate with the smallest error estimate wins, and both are printed (as `tag`). */
#define RP_NTAB 10
static void rp_fd(const struct rp_entry *e, const double *u, int n, int no, double h0,
                  const char *tag) {
    static double a[RP_NTAB][RP_NTAB][RP_MAX];
    double up[RP_MAX], op[RP_MAX], om[RP_MAX], best[RP_MAX], err[RP_MAX];
    const double con = 1.4, con2 = con * con;
    for (int j = 0; j < e->nu; j++) {
        double h = h0;
        for (int i = 0; i < no; i++)
            err[i] = INFINITY, best[i] = NAN;
        for (int k = 0; k < RP_NTAB; k++, h /= con) {
            memcpy(up, u, sizeof(double) * e->nu);
            up[j] = u[j] + h;
            e->eval(up, n, op);
            up[j] = u[j] - h;
            e->eval(up, n, om);
            for (int i = 0; i < no; i++) {
                a[0][k][i] = (op[i] - om[i]) / (2 * h);
                double fac = con2;
                for (int m = 1; m <= k; m++, fac *= con2) {
                    a[m][k][i] = (a[m - 1][k][i] * fac - a[m - 1][k - 1][i]) / (fac - 1);
                    double t = fmax(fabs(a[m][k][i] - a[m - 1][k][i]),
                                    fabs(a[m][k][i] - a[m - 1][k - 1][i]));
                    if (t <= err[i])
                        err[i] = t, best[i] = a[m][k][i];
                }
            }
        }
        for (int i = 0; i < no; i++)
            printf("%s %d %d %.17g %.17g\n", tag, i, j, best[i], err[i]);
    }
}

static void rp_jacobians(const struct rp_entry *e, const double *u, int n, int no) {
    double du[RP_MAX], o[RP_MAX], dout[RP_MAX], w[RP_MAX], gu[RP_MAX];
    for (int j = 0; e->fwd && j < e->nu; j++) {
        memset(du, 0, sizeof du);
        du[j] = 1.0;
        e->fwd(u, du, n, o, dout);
        for (int i = 0; i < no; i++)
            rp_print("fwd", i, j, dout[i]);
        for (int i = 0; i < e->ny; i++)
            rp_print("pf", j, i, o[i]);
    }
    for (int s = 0; e->rev && s < e->ny + e->has_ret; s++) {
        memset(w, 0, sizeof w);
        if (s < e->ny)
            w[s] = 1.0;
        if (e->has_ret)
            w[e->ny] = 1.0;
        e->rev(u, w, n, o, gu);
        for (int j = 0; j < e->nu; j++)
            rp_print("rev", s, j, gu[j]);
        for (int i = 0; i < e->ny; i++)
            rp_print("pr", s, i, o[i]);
    }
}

static void rp_dot_tests(const struct rp_entry *e, const double *u, int n, int no) {
    double v[RP_MAX], w[RP_MAX], o[RP_MAX], jv[RP_MAX], jtw[RP_MAX];
    for (int t = 0; e->fwd && e->rev && t < 3; t++) {
        for (int j = 0; j < e->nu; j++)
            v[j] = 2 * rp_uniform() - 1;
        for (int i = 0; i < no; i++)
            w[i] = 2 * rp_uniform() - 1;
        if (e->has_ret)
            w[e->ny] = 1.0;
        e->fwd(u, v, n, o, jv);
        e->rev(u, w, n, o, jtw);
        double lhs = 0, rhs = 0;
        for (int i = 0; i < no; i++)
            lhs += jv[i] * w[i];
        for (int j = 0; j < e->nu; j++)
            rhs += v[j] * jtw[j];
        for (int j = 0; j < e->nu; j++)
            rp_print("dv", t, j, v[j]);
        for (int i = 0; i < no; i++)
            rp_print("dw", t, i, w[i]);
        printf("dot %d %.17g %.17g\n", t, lhs, rhs);
    }
}

static void rp_check(const struct rp_entry *e, int point) {
    double u[RP_MAX], o[RP_MAX];
    int no = e->ny + e->has_ret;
    rp_state = 0x9E3779B97F4A7C15ULL ^ (e->seed * 1000003ULL + (unsigned long long)point * 7919ULL);
    for (int k = 0; k < 8; k++)
        rp_uniform();
    for (int j = 0; j < e->nu; j++)
        u[j] = rp_input();
    int n = e->n_max > 0 ? 1 + (int)(rp_uniform() * e->n_max) : 0;
    printf("fn %s point %d n %d nu %d ny %d ret %d h %.17g\n", e->name, point, n, e->nu,
           e->ny, e->has_ret, e->h);
    for (int j = 0; j < e->nu; j++)
        rp_print("u", j, -1, u[j]);
    e->eval(u, n, o);
    for (int i = 0; i < no; i++)
        rp_print("o", i, -1, o[i]);
    rp_fd(e, u, n, no, e->h, "fd");
    if (e->h2 > 0)
        rp_fd(e, u, n, no, e->h2, "fd2");
    rp_jacobians(e, u, n, no);
    rp_dot_tests(e, u, n, no);
    printf("end %s\n", e->name);
    fflush(stdout);
}

static int rp_main(const struct rp_entry *table, int count, int argc, char **argv) {
    const char *which = argc > 1 ? argv[1] : "all";
    int point = argc > 2 ? atoi(argv[2]) : 0;
    int found = 0;
    for (int k = 0; k < count; k++) {
        if (strcmp(which, "all") == 0 || strcmp(which, table[k].name) == 0) {
            rp_check(&table[k], point);
            found = 1;
        }
    }
    if (!found) {
        fprintf(stderr, "no function named %s\n", which);
        return 2;
    }
    return 0;
}
