// Diagnostic: a helper copying 8-byte words through `long *`, called with a record
// holding doubles and a long. Which words are doubles depends on the loop's index,
// so no one type of the moved word is right: a compile-time error at the store (it
// was a zero gradient: the words taken as integers, as the helper's types say).
// ClangEnzyme-19 rejects it too (built with -fno-strict-aliasing, it differentiates
// it: its type analysis follows the constant length into the loop).
#include <stddef.h>
#include <stdio.h>

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

struct sample { double x; long tag; double y; };

__attribute__((noinline)) void copy_words(void *to, const void *from, size_t n) {
    long *t = to;
    const long *s = from;
    for (size_t i = 0; i < n / sizeof(long); i++)
        t[i] = s[i]; /* DIAG-LINE */
}

double f(const double *in) {
    struct sample a = { in[0] * 2.0, 3, in[1] }, b;
    copy_words(&b, &a, sizeof a);
    return b.x * b.y + b.tag;
}

int main(void) {
    double in[2] = {1.5, -2.0}, d[2] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, in, d);
    printf("%g %g\n", d[0], d[1]);
    return 0;
}
