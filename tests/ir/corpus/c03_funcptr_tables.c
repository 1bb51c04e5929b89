/* Function pointers: dispatch tables, callbacks through qsort/bsearch, functions
   returning function pointers, and indirect calls clang cannot devirtualize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef double (*unary_fn)(double);
typedef int (*binop_fn)(int, int);

static double square(double x) { return x * x; }
static double cube(double x) { return x * x * x; }
static double halve(double x) { return x / 2; }

static int op_add(int a, int b) { return a + b; }
static int op_sub(int a, int b) { return a - b; }
static int op_mul(int a, int b) { return a * b; }
static int op_div(int a, int b) { return b ? a / b : 0; }

static const struct { const char *name; binop_fn fn; } ops[] = {
    { "add", op_add }, { "sub", op_sub }, { "mul", op_mul }, { "div", op_div },
};

static unary_fn unaries[] = { square, cube, halve, 0 };

static binop_fn lookup(const char *name) {
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(ops[i].name, name) == 0)
            return ops[i].fn;
    return NULL;
}

static double apply_all(double x) {
    for (unary_fn *f = unaries; *f; f++)
        x = (*f)(x);
    return x;
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static unary_fn choose(int k) {
    return k > 1 ? cube : k == 1 ? square : halve;
}

struct handler { void (*on_event)(void *ctx, int code); void *ctx; };

static void count_event(void *ctx, int code) { *(int *)ctx += code; }

static void fire(struct handler *hs, int n, int code) {
    for (int i = 0; i < n; i++)
        if (hs[i].on_event)
            hs[i].on_event(hs[i].ctx, code);
}

int main(int argc, char **argv) {
    int data[] = { 9, 3, 7, 1, 8, 2, 6 };
    size_t n = sizeof data / sizeof data[0];
    qsort(data, n, sizeof data[0], cmp_int);
    int key = 7;
    int *hit = bsearch(&key, data, n, sizeof data[0], cmp_int);
    const char *words[] = { "pear", "apple", "fig", argv[0] };
    qsort(words, 4, sizeof words[0], cmp_str);
    binop_fn f = lookup(argc > 1 ? argv[1] : "mul");
    int counter = 0;
    struct handler hs[2] = { { count_event, &counter }, { NULL, NULL } };
    fire(hs, 2, 5);
    printf("%d %s %d %g %g %d\n", hit ? (int)(hit - data) : -1, words[0],
           f ? f(6, 7) : 0, apply_all(3.0), choose(argc)(2.0), counter);
    return 0;
}
