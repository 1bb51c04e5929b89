// __enzyme_error_estimate with the optional logger: a program that defines
// enzymeLogError sees every rounding operation of the estimated function once per
// call, in program order, with the operation's result, its error and its name; a
// value that does not reach the result (only printed) is not an active operation.
// tol: rel=1e-12 abs=0
// grads: 8
#include <stdio.h>
#include <string.h>
#include "errest.h"

double __enzyme_error_estimate(void *, ...);

enum { MAX_LOG = 16 };
static int logged;
static double log_res[MAX_LOG], log_err[MAX_LOG];
static char log_op[MAX_LOG][32], log_callee[MAX_LOG][32];

void enzymeLogError(double res, double err, const char *opcode, const char *callee, const char *module,
                    const char *function, const char *block) {
    (void)module, (void)function, (void)block;
    if (logged < MAX_LOG) {
        log_res[logged] = res, log_err[logged] = err;
        snprintf(log_op[logged], sizeof log_op[0], "%s", opcode);
        snprintf(log_callee[logged], sizeof log_callee[0], "%s", callee);
    }
    logged++;
}

double f(double x, double y) {
    double l = log(x);          /* call */
    double m = l * y;           /* fmul */
    double side = exp(m);       /* printed only: no error, no log */
    printf("side %g\n", side);
    return m - y;               /* fsub */
}

int main(void) {
    double x = 2.5, y = -0.3, ex = 1e-12, ey = 3e-15;
    double err = __enzyme_error_estimate((void *)f, x, ex, y, ey);
    double l = log(x), m = l * y, r = m - y;
    double el = op_error(l, through(1 / x, ex, x, l));
    double em = op_error(m, through(y, el, l, m) + through(l, ey, y, m));
    double er = op_error(r, through(1, em, m, r) + through(-1, ey, y, r));
    printf("grad error %.17g %.17g\n", err, er);
    printf("grad log_calls %d %d\n", logged, 3);
    const double want_res[3] = {l, m, r}, want_err[3] = {el, em, er};
    const char *want_op[3] = {"call", "fmul", "fsub"};
    for (int i = 0; i < 3 && i < logged; i++) {
        printf("grad logged_error%d %.17g %.17g\n", i, log_err[i], want_err[i]);
        printf("grad logged_result%d %.17g %.17g\n", i, log_res[i], want_res[i]);
        if (strncmp(log_op[i], want_op[i], strlen(want_op[i])) != 0) {
            printf("operation %d logged as '%s', expected '%s'\n", i, log_op[i], want_op[i]);
            return 1;
        }
    }
    if (logged < 1 || strcmp(log_callee[0], "log") != 0 || strcmp(log_callee[1], "<N/A>") != 0) {
        printf("callee names: '%s', '%s'\n", log_callee[0], log_callee[1]);
        return 1;
    }
    return 0;
}
