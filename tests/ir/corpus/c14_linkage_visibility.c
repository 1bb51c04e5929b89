/* Linkage and symbol attributes: thread-local storage (all TLS models), weak and
   weak-reference symbols, visibility, aliases, an ifunc with its resolver, named
   sections, explicit alignment, used/retain, cold/hot/noinline/always_inline. */
#include <stddef.h>
#include <stdio.h>

_Thread_local int tls_counter;
__thread long tls_initialized = 42;
static _Thread_local double tls_local_accum;
__attribute__((tls_model("initial-exec"))) _Thread_local int tls_ie;
__attribute__((tls_model("local-exec"))) _Thread_local int tls_le = 3;

__attribute__((weak)) int weak_setting = 7;
__attribute__((weak)) int weak_hook(int x) { return x * 2; }
extern int maybe_missing(int) __attribute__((weak));

__attribute__((visibility("hidden"))) int hidden_value = 11;
__attribute__((visibility("protected"))) int protected_value = 13;
__attribute__((visibility("default"))) int default_value = 17;
__attribute__((visibility("hidden"))) int hidden_fn(int x) { return x + hidden_value; }

int real_implementation(int x) { return x * 3 + 1; }
int alias_of_impl(int) __attribute__((alias("real_implementation")));
extern int weak_alias(int) __attribute__((weak, alias("real_implementation")));
static int data_target[4] = { 1, 2, 3, 4 };
extern int data_alias[4] __attribute__((alias("data_target")));

static int impl_generic(int x) { return x + 100; }
static int impl_fast(int x) { return x + 200; }
typedef int (*impl_fn)(int);
static impl_fn resolve_impl(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") ? impl_fast : impl_generic;
}
int dispatched(int x) __attribute__((ifunc("resolve_impl")));

__attribute__((section(".enzc_data"))) int sectioned_table[3] = { 5, 6, 7 };
__attribute__((section(".text.enzc_hot"), hot)) int hot_path(int x) { return x ^ 0x55; }
__attribute__((aligned(64))) static double aligned_buffer[8];
__attribute__((used)) static const char build_tag[] = "enzc-corpus";
__attribute__((retain, used)) static int retained_counter;

__attribute__((cold, noinline)) static void report_error(const char *msg) {
    fprintf(stderr, "error: %s\n", msg);
}

__attribute__((always_inline)) static inline int fast_square(int x) { return x * x; }

__attribute__((noinline, pure)) static int pure_sum(const int *p, size_t n) {
    int s = 0;
    for (size_t i = 0; i < n; i++)
        s += p[i];
    return s;
}

__attribute__((noinline, const)) static int const_fn(int x) { return x * 7; }

__attribute__((nonnull(1), warn_unused_result)) static int deref(const int *p) { return *p; }

static void bump_tls(int by) {
    tls_counter += by;
    tls_local_accum += by * 0.5;
    tls_ie++;
    tls_le += tls_ie;
}

int main(int argc, char **argv) {
    (void)argv;
    bump_tls(argc);
    aligned_buffer[argc & 7] = 1.5;
    retained_counter++;
    if (argc > 5)
        report_error("too many arguments");
    int extra = maybe_missing ? maybe_missing(argc) : 0;
    printf("%d %ld %g %d %d %d %d %d %d %d %d %d %d %d %d %d\n", tls_counter, tls_initialized,
           tls_local_accum, tls_le, weak_setting, weak_hook(argc), hidden_fn(argc),
           protected_value + default_value, alias_of_impl(argc), weak_alias(2), data_alias[2],
           dispatched(argc), sectioned_table[argc % 3] + hot_path(argc), fast_square(argc) + extra,
           pure_sum(data_target, 4) + const_fn(argc), deref(&argc));
    return 0;
}
