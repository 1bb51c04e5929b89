/* Shared driver for the benchmark programs: command line, timing, checks.
 *
 * Each benchmark (gmm, ba, lstm, ode, fft, bruss) describes itself as an
 * `ab_problem` and calls `ab_main`.  The driver knows nothing about the
 * problem beyond that table, so every benchmark is timed, printed and
 * finite-differenced the same way, whichever tool built the derivative.
 *
 * Usage of every benchmark program:
 *   PROG time  INPUT [--min-time S] [--min-runs N] [--dump FILE] [--clock cpu|wall] [opts]
 *   PROG check INPUT [opts]      objective outputs and the derivative, as text
 *   PROG fd    INPUT [opts]      the derivative by central finite differences
 *   PROG objective INPUT [opts]  the objective outputs only
 *   PROG memory INPUT [opts]     heap use of one derivative call (needs heapcount.c)
 * INPUT is a data file (gmm, ba, lstm) or a size spec such as "n=64,steps=100".
 */
#ifndef ADBENCH_H
#define ADBENCH_H

#include <stddef.h>
#include <stdio.h>

/* Command-line options; the problem's loader reads the ones it needs. */
struct ab_options {
    const char *mode;   /* "time", "check", "fd" or "objective" */
    const char *input;  /* data file or size spec */
    double min_time;    /* seconds of repeated calls per measurement */
    int min_runs;       /* at least this many timed samples */
    const char *dump;   /* time mode: write the derivative here as raw doubles */
    int replicate;      /* gmm: one point in the file stands for all n */
    long truncate;      /* lstm: use only the first N characters (0 = all) */
    const char *method; /* ode: "euler" or "rk4" */
    long limit;         /* ba: use only the first N observations (0 = all) */
    double fd_step;     /* relative finite-difference step */
};

/* A contiguous run of active (differentiated) inputs. */
struct ab_segment {
    double *ptr;
    size_t len;
};

/* The derivative the last `derivative` call produced.  A gradient is one
 * dense row (rowptr == NULL); a sparse Jacobian is given in CSR form. */
struct ab_derivative {
    const double *values;
    size_t nnz;
    size_t nrows, ncols;
    const int *rowptr; /* nrows + 1 entries, or NULL for a dense row */
    const int *cols;   /* nnz entries, or NULL */
};

#define AB_MAX_SEGMENTS 8

struct ab_problem {
    const char *name;
    /* Reads or builds the input; exits through ab_die on bad input. */
    void *(*load)(const struct ab_options *opt);
    void (*objective)(void *ctx);
    void (*derivative)(void *ctx);
    /* Outputs of the last objective call (one value for a scalar loss). */
    const double *(*outputs)(void *ctx, size_t *n);
    /* Active inputs in the derivative's column order; returns the count. */
    size_t (*inputs)(void *ctx, struct ab_segment seg[AB_MAX_SEGMENTS]);
    struct ab_derivative (*result)(void *ctx);
    void (*release)(void *ctx);
};

int ab_main(int argc, char **argv, const struct ab_problem *problem);

/* Helpers for the problems. */
_Noreturn void ab_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *ab_alloc(size_t count, size_t size);
FILE *ab_open(const char *path);
void ab_read_doubles(FILE *f, const char *path, double *out, size_t n, const char *what);
long ab_read_long(FILE *f, const char *path, const char *what);
/* "n=64,steps=100": the value of `key`, or `fallback` when absent. */
long ab_spec_long(const char *spec, const char *key, long fallback);

/* Heap use since ab_heap_mark, counted by c/heapcount.c, which only the
 * memory builds link (with -Wl,--wrap=malloc,...); elsewhere these are null. */
struct ab_heap_use {
    long long allocated; /* bytes allocated (usable sizes) */
    long long blocks;    /* allocations */
    long long peak;      /* most bytes live at once, above the level at the mark */
    long long base;      /* bytes live at the mark */
};
void ab_heap_mark(void) __attribute__((weak));
struct ab_heap_use ab_heap_since_mark(void) __attribute__((weak));

/* Deterministic inputs for the synthetic benchmarks (xorshift64*). */
struct ab_rng {
    unsigned long long state;
};
void ab_rng_seed(struct ab_rng *rng, unsigned long long seed);
double ab_rng_uniform(struct ab_rng *rng); /* in [0, 1) */

#endif
