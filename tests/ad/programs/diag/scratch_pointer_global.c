// Diagnostic: a scratch buffer kept between calls in a global pointer (`static double
// *work`, grown on demand) and written with active values. Its shadow buffer would
// have to live as long as the primal one, which enzc cannot know, so it asks for a
// registered shadow pointer and names the global (it used to say only "memory the AD
// cannot shadow"). With the shadow registered it differentiates:
// rev2/globals/scratch_pointer_registered.c.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

static double *work;
static int work_n;

static void ensure(int n) {
    if (work_n < n) {
        free(work);
        work = malloc(n * sizeof(double));
        work_n = n;
    }
}

double f(const double *x, int n) {
    ensure(n);
    for (int i = 0; i < n; i++) work[i] = sin(x[i]) * x[i]; /* DIAG-LINE */
    double s = 0;
    for (int i = 0; i < n; i++) s += work[i] * work[(i + 1) % n];
    return s;
}

int main(void) {
    double x[4] = {0.3, 1.1, -0.7, 2.0}, dx[4] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 4);
    printf("%g\n", dx[0]);
    return 0;
}
