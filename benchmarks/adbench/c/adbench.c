/* Shared driver: see adbench.h.  Timing happens here, in C, so the Python
 * harness only starts programs and reads one result line. */
#define _POSIX_C_SOURCE 200809L
#include "adbench.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*ab_fn)(void *);

/* A sample should last this long at least, so clock resolution and call
 * overhead stay out of the measurement of very fast calls. */
#define AB_MIN_SAMPLE_S 1e-3
#define AB_MAX_SAMPLES 100000
/* --dump writes at most this many values (every k-th for larger results):
 * enough to compare tools, small enough for a 900M-entry BA Jacobian. */
#define AB_DUMP_MAX ((size_t)1 << 22)

void ab_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* Zeroed memory, every page already touched: no timed call pays for the
 * first-touch faults of the buffers the loaders allocate. */
void *ab_alloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (!p)
        ab_die("out of memory allocating %zu x %zu bytes", count, size);
    volatile char *bytes = p;
    for (size_t i = 0; i < count * size; i += 4096)
        bytes[i] = 0;
    return p;
}

FILE *ab_open(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        ab_die("cannot open %s: %s", path, strerror(errno));
    return f;
}

void ab_read_doubles(FILE *f, const char *path, double *out, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (fscanf(f, "%lf", &out[i]) != 1)
            ab_die("%s: expected %zu numbers for %s, read %zu", path, n, what, i);
}

long ab_read_long(FILE *f, const char *path, const char *what)
{
    long v;
    if (fscanf(f, "%ld", &v) != 1 || v < 0)
        ab_die("%s: expected a non-negative integer for %s", path, what);
    return v;
}

long ab_spec_long(const char *spec, const char *key, long fallback)
{
    size_t klen = strlen(key);
    const char *p = spec;
    while (*p) {
        if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
            char *end;
            long v = strtol(p + klen + 1, &end, 10);
            if (end == p + klen + 1 || (*end && *end != ',') || v <= 0)
                ab_die("bad size spec '%s': %s needs a positive integer", spec, key);
            return v;
        }
        p = strchr(p, ',');
        if (!p)
            break;
        p++;
    }
    return fallback;
}

void ab_rng_seed(struct ab_rng *rng, unsigned long long seed)
{
    rng->state = seed ? seed : 0x9E3779B97F4A7C15ULL;
}

double ab_rng_uniform(struct ab_rng *rng)
{
    unsigned long long x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
}

/* CPU time of this (single-threaded) process by default: other load on the
 * machine then does not inflate the figures.  --clock wall for wall time. */
static clockid_t ab_clock = CLOCK_PROCESS_CPUTIME_ID;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(ab_clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One function under measurement: samples of `batch` calls each.  The
 * function pointer is volatile so no build (not even one that merges all
 * files) can inline the call or hoist it out of the loop. */
struct ab_timer {
    ab_fn volatile fn;
    void *ctx;
    long batch;
    double *samples;
    int count;
    double total;
};

/* The warm-up call, which also sizes the batch so a sample lasts at least
 * AB_MIN_SAMPLE_S.  A first call that alone lasts min_time is the first
 * sample (a call that long needs no warm-up); shorter ones are not counted. */
static void timer_start(struct ab_timer *t, ab_fn fn, void *ctx, const struct ab_options *opt)
{
    t->fn = fn;
    t->ctx = ctx;
    t->samples = ab_alloc(AB_MAX_SAMPLES, sizeof *t->samples);
    t->count = 0;
    t->total = 0;
    double t0 = now_s();
    t->fn(ctx);
    double first = now_s() - t0;
    if (first >= opt->min_time) {
        t->samples[t->count++] = first;
        t->total = first;
    }
    t->batch = first >= AB_MIN_SAMPLE_S ? 1 : (long)(AB_MIN_SAMPLE_S / fmax(first, 1e-9)) + 1;
}

static int timer_needs_more(const struct ab_timer *t, const struct ab_options *opt)
{
    return (t->count < opt->min_runs || t->total < opt->min_time) && t->count < AB_MAX_SAMPLES;
}

static void timer_sample(struct ab_timer *t)
{
    double t0 = now_s();
    for (long b = 0; b < t->batch; b++)
        t->fn(t->ctx);
    double dt = now_s() - t0;
    t->samples[t->count++] = dt / (double)t->batch;
    t->total += dt;
}

/* Median seconds per call; frees the samples. */
static double timer_median(struct ab_timer *t)
{
    qsort(t->samples, (size_t)t->count, sizeof *t->samples, cmp_double);
    int c = t->count;
    double median = c % 2 ? t->samples[c / 2] : 0.5 * (t->samples[c / 2 - 1] + t->samples[c / 2]);
    free(t->samples);
    return median;
}

/* Times objective and derivative with their samples interleaved, so both
 * medians see the same conditions on a machine whose load drifts. */
static void time_both(const struct ab_problem *p, void *ctx, const struct ab_options *opt,
                      struct ab_timer *obj, struct ab_timer *grad)
{
    timer_start(obj, p->objective, ctx, opt);
    timer_start(grad, p->derivative, ctx, opt);
    while (timer_needs_more(obj, opt) || timer_needs_more(grad, opt)) {
        if (timer_needs_more(obj, opt))
            timer_sample(obj);
        if (timer_needs_more(grad, opt))
            timer_sample(grad);
    }
}

static void print_vector(const char *label, const double *v, size_t n)
{
    printf("%s", label);
    for (size_t i = 0; i < n; i++)
        printf(" %.17g", v[i]);
    putchar('\n');
}

static void print_ints(const char *label, const int *v, size_t n)
{
    printf("%s", label);
    for (size_t i = 0; i < n; i++)
        printf(" %d", v[i]);
    putchar('\n');
}

static void dump_values(const char *path, const struct ab_derivative *d)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        ab_die("cannot write %s: %s", path, strerror(errno));
    size_t stride = (d->nnz + AB_DUMP_MAX - 1) / AB_DUMP_MAX;
    int ok = 1;
    for (size_t i = 0; i < d->nnz && ok; i += stride ? stride : 1)
        ok = fwrite(&d->values[i], sizeof(double), 1, f) == 1;
    if (fclose(f) != 0 || !ok)
        ab_die("cannot write %s", path);
}

static int run_time(const struct ab_problem *p, void *ctx, const struct ab_options *opt)
{
    struct ab_timer obj, grad;
    time_both(p, ctx, opt, &obj, &grad);
    int obj_runs = obj.count, grad_runs = grad.count;
    double t_obj = timer_median(&obj), t_grad = timer_median(&grad);
    size_t nout;
    double value = p->outputs(ctx, &nout)[0]; /* only the objective writes outputs */
    if (opt->dump) {
        struct ab_derivative d = p->result(ctx);
        dump_values(opt->dump, &d);
    }
    printf("RESULT objective_s=%.9e gradient_s=%.9e objective_runs=%d gradient_runs=%d "
           "objective=%.17g\n",
           t_obj, t_grad, obj_runs, grad_runs, value);
    return 0;
}

static int run_objective(const struct ab_problem *p, void *ctx, const struct ab_options *opt)
{
    (void)opt;
    size_t nout;
    p->objective(ctx);
    const double *out = p->outputs(ctx, &nout);
    printf("objective %zu\n", nout);
    print_vector("outputs", out, nout);
    return 0;
}

static int run_check(const struct ab_problem *p, void *ctx, const struct ab_options *opt)
{
    run_objective(p, ctx, opt);
    p->derivative(ctx);
    struct ab_derivative d = p->result(ctx);
    printf("derivative %zu %zu %zu\n", d.nrows, d.ncols, d.nnz);
    print_vector("values", d.values, d.nnz);
    if (d.rowptr) {
        print_ints("rowptr", d.rowptr, d.nrows + 1);
        print_ints("cols", d.cols, d.nnz);
    }
    return 0;
}

/* Heap use of one derivative call after a warm-up call (which also makes
 * any first-call allocations of the tool's runtime). */
static int run_memory(const struct ab_problem *p, void *ctx, const struct ab_options *opt)
{
    (void)opt;
    if (!ab_heap_mark || !ab_heap_since_mark)
        ab_die("memory mode needs a build linked with heapcount.c and "
               "-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free");
    p->derivative(ctx);
    ab_heap_mark();
    p->derivative(ctx);
    struct ab_heap_use use = ab_heap_since_mark();
    printf("MEMORY heap_allocated=%lld heap_blocks=%lld heap_peak=%lld\n", use.allocated,
           use.blocks, use.peak);
    return 0;
}

/* Evaluates the objective with input x set to `value`; copies the outputs. */
static void outputs_at(const struct ab_problem *p, void *ctx, double *x, double value,
                       double *out, size_t nout)
{
    *x = value;
    p->objective(ctx);
    size_t n;
    memcpy(out, p->outputs(ctx, &n), nout * sizeof *out);
}

/* Fourth-order central differences of every output w.r.t. every active
 * input: (-f(x+2h) + 8 f(x+h) - 8 f(x-h) + f(x-2h)) / 12h, h relative. */
static int run_fd(const struct ab_problem *p, void *ctx, const struct ab_options *opt)
{
    struct ab_segment seg[AB_MAX_SEGMENTS];
    size_t nseg = p->inputs(ctx, seg);
    size_t nin = 0, nout;
    for (size_t s = 0; s < nseg; s++)
        nin += seg[s].len;
    p->objective(ctx);
    p->outputs(ctx, &nout);

    double *jac = ab_alloc(nout * nin, sizeof *jac);
    double *fp2 = ab_alloc(nout, sizeof *fp2), *fp1 = ab_alloc(nout, sizeof *fp1);
    double *fm1 = ab_alloc(nout, sizeof *fm1), *fm2 = ab_alloc(nout, sizeof *fm2);
    size_t col = 0;
    for (size_t s = 0; s < nseg; s++) {
        for (size_t i = 0; i < seg[s].len; i++, col++) {
            double *x = &seg[s].ptr[i];
            double x0 = *x;
            double h = opt->fd_step * fmax(1.0, fabs(x0));
            outputs_at(p, ctx, x, x0 + 2 * h, fp2, nout);
            outputs_at(p, ctx, x, x0 + h, fp1, nout);
            outputs_at(p, ctx, x, x0 - h, fm1, nout);
            outputs_at(p, ctx, x, x0 - 2 * h, fm2, nout);
            *x = x0;
            for (size_t r = 0; r < nout; r++)
                jac[r * nin + col] = (-fp2[r] + 8 * fp1[r] - 8 * fm1[r] + fm2[r]) / (12 * h);
        }
    }
    printf("fd %zu %zu\n", nout, nin);
    for (size_t r = 0; r < nout; r++)
        print_vector("row", &jac[r * nin], nin);
    free(jac);
    free(fp2);
    free(fp1);
    free(fm1);
    free(fm2);
    return 0;
}

static void usage(const char *prog)
{
    ab_die("usage: %s time|check|fd|objective|memory INPUT [--min-time S] [--min-runs N] [--dump FILE] "
           "[--clock cpu|wall] [--replicate] [--truncate N] [--limit N] [--method euler|rk4] "
           "[--fd-step H]",
           prog);
}

static double parse_double(const char *s, const char *what)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0))
        ab_die("%s needs a non-negative number, got '%s'", what, s);
    return v;
}

static long parse_long(const char *s, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 0)
        ab_die("%s needs a non-negative integer, got '%s'", what, s);
    return v;
}

static struct ab_options parse_options(int argc, char **argv)
{
    struct ab_options o = {.min_time = 0.5, .min_runs = 1, .method = "euler", .fd_step = 1e-4};
    if (argc < 3)
        usage(argv[0]);
    o.mode = argv[1];
    o.input = argv[2];
    for (int i = 3; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--replicate") == 0) {
            o.replicate = 1;
            continue;
        }
        if (!v)
            usage(argv[0]);
        if (strcmp(a, "--min-time") == 0)
            o.min_time = parse_double(v, a);
        else if (strcmp(a, "--min-runs") == 0)
            o.min_runs = (int)parse_long(v, a);
        else if (strcmp(a, "--dump") == 0)
            o.dump = v;
        else if (strcmp(a, "--truncate") == 0)
            o.truncate = parse_long(v, a);
        else if (strcmp(a, "--limit") == 0)
            o.limit = parse_long(v, a);
        else if (strcmp(a, "--method") == 0)
            o.method = v;
        else if (strcmp(a, "--fd-step") == 0)
            o.fd_step = parse_double(v, a);
        else if (strcmp(a, "--clock") == 0 && strcmp(v, "cpu") == 0)
            ab_clock = CLOCK_PROCESS_CPUTIME_ID;
        else if (strcmp(a, "--clock") == 0 && strcmp(v, "wall") == 0)
            ab_clock = CLOCK_MONOTONIC;
        else
            usage(argv[0]);
        i++;
    }
    return o;
}

int ab_main(int argc, char **argv, const struct ab_problem *p)
{
    struct ab_options opt = parse_options(argc, argv);
    static const struct {
        const char *name;
        int (*run)(const struct ab_problem *, void *, const struct ab_options *);
    } modes[] = {{"time", run_time},           {"check", run_check},   {"fd", run_fd},
                 {"objective", run_objective}, {"memory", run_memory}};
    int (*run)(const struct ab_problem *, void *, const struct ab_options *) = NULL;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(opt.mode, modes[i].name) == 0)
            run = modes[i].run;
    if (!run)
        usage(argv[0]);
    void *ctx = p->load(&opt);
    int rc = run(p, ctx, &opt);
    p->release(ctx);
    if (fflush(stdout) != 0)
        ab_die("cannot write results");
    return rc;
}
