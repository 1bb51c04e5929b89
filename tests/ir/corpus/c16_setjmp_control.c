/* Non-local and unusual control flow: setjmp/longjmp (returns_twice calls),
   noreturn functions, __builtin_expect/__builtin_expect_with_probability,
   __builtin_unreachable, __builtin_assume, __builtin_trap and a do/while/continue mix. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf recovery;
static int error_code;

__attribute__((noreturn)) static void fail(int code) {
    error_code = code;
    longjmp(recovery, code);
}

static int checked_div(int a, int b) {
    if (__builtin_expect(b == 0, 0))
        fail(1);
    if (__builtin_expect_with_probability(a < 0, 0, 0.9))
        fail(2);
    return a / b;
}

static int run_protected(int a, int b) {
    volatile int attempts = 0;
    if (setjmp(recovery) != 0) {
        attempts++;
        if (attempts > 2)
            return -error_code;
        b = b ? b : 1;
        a = a < 0 ? -a : a;
    }
    return checked_div(a, b);
}

static int grade(int score) {
    __builtin_assume(score >= 0);
    if (score > 100)
        __builtin_unreachable();
    if (score >= 90) return 'A';
    if (score >= 80) return 'B';
    if (score >= 70) return 'C';
    return 'F';
}

static int digits_sum(unsigned n) {
    int s = 0;
    do {
        unsigned d = n % 10;
        n /= 10;
        if (d == 0)
            continue;
        s += (int)d;
    } while (n);
    return s;
}

static int must_be_positive(int x) {
    if (x <= 0)
        __builtin_trap();
    return x;
}

static sigjmp_buf sig_recovery;
static int nested(int depth) {
    if (sigsetjmp(sig_recovery, 1))
        return -1;
    if (depth > 3)
        siglongjmp(sig_recovery, 1);
    return depth;
}

int main(int argc, char **argv) {
    int r1 = run_protected(10, 0);
    int r2 = run_protected(-9, 3);
    int r3 = run_protected(20 * argc, 4);
    int g = grade(argc * 30 > 100 ? 100 : argc * 30);
    printf("%d %d %d %c %d %d %d\n", r1, r2, r3, g, digits_sum(1203405u + (unsigned)argc),
           must_be_positive(argc), nested(argc));
    if (argc > 10)
        abort();
    (void)argv;
    return 0;
}
