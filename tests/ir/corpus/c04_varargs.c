/* Variadic functions: va_start/va_arg/va_copy/va_end of ints, doubles, pointers and
   structs; clang lowers va_arg on x86-64 into explicit register-save-area code. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct pair { int a; double b; };

static double sum_doubles(int count, ...) {
    va_list ap;
    va_start(ap, count);
    double s = 0;
    for (int i = 0; i < count; i++)
        s += va_arg(ap, double);
    va_end(ap);
    return s;
}

static long sum_mixed(const char *fmt, ...) {
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    long total = 0;
    for (const char *p = fmt; *p; p++) {
        switch (*p) {
        case 'i': total += va_arg(ap, int); break;
        case 'l': total += va_arg(ap, long); break;
        case 'd': total += (long)va_arg(ap, double); break;
        case 's': total += (long)strlen(va_arg(ap, const char *)); break;
        case 'p': {
            struct pair pr = va_arg(ap, struct pair);
            total += pr.a + (long)pr.b;
            break;
        }
        }
    }
    va_end(ap);
    /* Walk the copy once more to count the ints only. */
    for (const char *p = fmt; *p; p++) {
        if (*p == 'i')
            total += va_arg(again, int);
        else if (*p == 'd')
            (void)va_arg(again, double);
        else if (*p == 'p')
            (void)va_arg(again, struct pair);
        else
            (void)va_arg(again, void *);
    }
    va_end(again);
    return total;
}

static int logf_to(char *buf, size_t cap, const char *fmt, va_list ap) {
    return vsnprintf(buf, cap, fmt, ap);
}

static int logmsg(char *buf, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = logf_to(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}

static int max_of(int first, ...) {
    va_list ap;
    va_start(ap, first);
    int best = first;
    for (int v = va_arg(ap, int); v >= 0; v = va_arg(ap, int))
        if (v > best)
            best = v;
    va_end(ap);
    return best;
}

int main(int argc, char **argv) {
    (void)argv;
    char buf[128];
    struct pair pr = { 3, 4.5 };
    double s = sum_doubles(4, 1.0, 2.5, 3.25, (double)argc);
    long m = sum_mixed("ildsp", 1, 2L, 3.9, "four", pr);
    int n = logmsg(buf, sizeof buf, "%d:%s:%.2f", argc, "x", s);
    printf("%s %ld %d %d\n", buf, m, n, max_of(3, 9, 4, argc, -1));
    return 0;
}
