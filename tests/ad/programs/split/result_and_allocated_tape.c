// Split reverse mode of a function returning a double: __enzyme_augmentfwd declared
// to return {result, tape} (as Enzyme's tests do), __enzyme_reverse taking the
// result's adjoint before the tape and returning the out derivatives; and the
// enzyme_allocated/enzyme_tape form, where the tape lives in the caller's buffer.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

typedef struct { double result; void *tape; } ResultAndTape;
typedef struct { double da, db; } Pair;

ResultAndTape __enzyme_augmentfwd(void *, ...);
Pair __enzyme_reverse(void *, ...);
void *__enzyme_augmentfwd_buf(void *, ...);
Pair __enzyme_reverse_buf(void *, ...);
extern int enzyme_out, enzyme_allocated, enzyme_tape;

__attribute__((noinline)) double g(double a, double b) {
    double s = 0;
    for (int k = 1; k <= 3; k++) s += sin(a * k) * exp(-b * k);
    return s;
}

static void expected(double a, double b, double *da, double *db) {
    *da = *db = 0;
    for (int k = 1; k <= 3; k++) {
        *da += k * cos(a * k) * exp(-b * k);
        *db += -k * sin(a * k) * exp(-b * k);
    }
}

int main(void) {
    double a = 0.7, b = 0.3, ea, eb;
    expected(a, b, &ea, &eb);
    ResultAndTape rt = __enzyme_augmentfwd((void *)g, enzyme_out, a, enzyme_out, b);
    printf("grad result %.17g %.17g\n", rt.result, g(a, b));
    Pair d = __enzyme_reverse((void *)g, enzyme_out, a, enzyme_out, b, 2.0, rt.tape);
    printf("grad da %.17g %.17g\n", d.da, 2 * ea);
    printf("grad db %.17g %.17g\n", d.db, 2 * eb);

    char buffer[64];
    __enzyme_augmentfwd_buf((void *)g, enzyme_out, a, enzyme_out, b, enzyme_allocated, sizeof buffer,
                            enzyme_tape, buffer);
    Pair e = __enzyme_reverse_buf((void *)g, enzyme_out, a, enzyme_out, b, 1.0, enzyme_allocated,
                                  sizeof buffer, enzyme_tape, buffer);
    printf("grad da_buffer %.17g %.17g\n", e.da, ea);
    printf("grad db_buffer %.17g %.17g\n", e.db, eb);
    Pair z = __enzyme_reverse((void *)g, enzyme_out, a, enzyme_out, b, 0.0,
                              __enzyme_augmentfwd((void *)g, enzyme_out, a, enzyme_out, b).tape);
    printf("grad da_zero_seed %.17g %.17g\n", z.da, 0.0);
    return 0;
}
