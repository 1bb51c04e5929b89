/* Assorted GNU C and C11 features: _Generic, statement expressions, typeof,
   __builtin_choose_expr, __builtin_constant_p, __builtin_object_size, prefetch,
   _Static_assert, compound literals, designated initializers in expressions,
   __builtin_offsetof, flexible arrays, restrict and volatile accesses. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define type_name(x) _Generic((x), int: "int", double: "double", float: "float", \
                              char *: "char*", default: "other")
#define max_of(a, b) ({ typeof(a) _a = (a); typeof(b) _b = (b); _a > _b ? _a : _b; })
#define square_any(x) __builtin_choose_expr(__builtin_types_compatible_p(typeof(x), double), \
                                            (x) * (x), (x) * (x) + 0)

struct sensor { const char *label; volatile int reading; int history[]; };
_Static_assert(offsetof(struct sensor, history) % sizeof(int) == 0, "history aligned");

static volatile int mmio_register;

static int poll_device(int n) {
    int last = 0;
    for (int i = 0; i < n; i++) {
        mmio_register = i;
        last += mmio_register;
    }
    return last;
}

static size_t safe_copy(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
    return __builtin_object_size(dst, 0) == (size_t)-1 ? n : n + 1000;
}

static long sum_prefetch(const long *restrict a, int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
        __builtin_prefetch(&a[i + 8], 0, 1);
        s += a[i];
    }
    return s;
}

static int const_fold(int x) { return __builtin_constant_p(x) ? 1 : 2; }

struct vec3 { double x, y, z; };

static double len2(struct vec3 v) { return v.x * v.x + v.y * v.y + v.z * v.z; }

static struct sensor *make_sensor(const char *label, int n) {
    struct sensor *s = malloc(sizeof *s + (size_t)n * sizeof(int));
    if (!s)
        return NULL;
    s->label = label;
    s->reading = n;
    for (int i = 0; i < n; i++)
        s->history[i] = i * i;
    return s;
}

int main(int argc, char **argv) {
    char buf[16];
    size_t copied = safe_copy(buf, sizeof buf, argv[0]);
    long arr[32];
    for (int i = 0; i < 32; i++)
        arr[i] = i * argc;
    int *squares = (int[]){ 1, 4, 9, 16 };
    double m = max_of(2.5, (double)argc);
    struct sensor *s = make_sensor("temp", 5 + argc);
    int hist = s ? s->history[4] + s->reading : -1;
    printf("%s %s %s %zu %ld %d %g %g %d %d %d %zu\n", type_name(argc), type_name(m), type_name(buf + 0),
           copied, sum_prefetch(arr, 24), squares[argc % 4], m, len2((struct vec3){ .x = 1, .z = argc }),
           const_fold(argc), poll_device(argc + 3), hist, (size_t)square_any(3));
    free(s);
    return 0;
}
