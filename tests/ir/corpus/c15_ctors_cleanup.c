/* Module constructors and destructors with priorities (llvm.global_ctors /
   llvm.global_dtors), atexit handlers and the cleanup attribute (scope-exit calls). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int init_order[8];
static int init_count;
static char *global_buffer;

__attribute__((constructor(101))) static void early_init(void) { init_order[init_count++] = 101; }

__attribute__((constructor(200))) static void late_init(void) {
    init_order[init_count++] = 200;
    global_buffer = malloc(64);
    if (global_buffer)
        strcpy(global_buffer, "ready");
}

__attribute__((constructor)) static void default_init(void) { init_order[init_count++] = 65535; }

__attribute__((destructor(150))) static void teardown(void) {
    free(global_buffer);
    global_buffer = NULL;
}

__attribute__((destructor)) static void final_report(void) {
    if (init_count != 3)
        fputs("unexpected init count\n", stderr);
}

static void on_exit_handler(void) { init_order[0] = 0; }

static void free_ptr(char **p) { free(*p); }
static void close_file(FILE **f) {
    if (*f)
        fclose(*f);
}
static void unlock(int **depth) { --**depth; }

static int lock_depth;

static size_t process(const char *path) {
    __attribute__((cleanup(close_file))) FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    __attribute__((cleanup(free_ptr))) char *buf = malloc(256);
    if (!buf)
        return 0;
    lock_depth++;
    __attribute__((cleanup(unlock))) int *guard = &lock_depth;
    size_t total = 0, n;
    while ((n = fread(buf, 1, 256, f)) > 0) {
        total += n;
        if (total > 4096)
            return total;
    }
    (void)guard;
    return total;
}

int main(int argc, char **argv) {
    atexit(on_exit_handler);
    size_t n = process(argc > 1 ? argv[1] : argv[0]);
    printf("%d %d %d %s %zu %d\n", init_order[0], init_order[1], init_order[2],
           global_buffer ? global_buffer : "(null)", n, lock_depth);
    return 0;
}
