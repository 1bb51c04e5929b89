/* Test functions for enzc.load (tests/python): built for double and, with
 * -DREAL=float, for float. Each is differentiated through the Python API and checked
 * against central finite differences. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef REAL
#define REAL double
#endif

/* loop + libm */
REAL sum_sin_exp(const REAL *x, int n) {
    REAL s = 0;
    for (int i = 0; i < n; i++)
        s += sin(x[i]) * exp(-0.5 * x[i] * x[i]);
    return s;
}

/* heap temporaries: a malloc'd scratch array of running products */
REAL prefix_products(const REAL *x, int n) {
    REAL *p = malloc(sizeof(REAL) * (size_t)n);
    REAL acc = 1, s = 0;
    for (int i = 0; i < n; i++) {
        acc *= 1 + 0.1 * x[i];
        p[i] = acc;
    }
    for (int i = 0; i < n; i++)
        s += p[i] * p[i];
    free(p);
    return s;
}

/* integer array input (labels) next to floating ones; log/exp */
REAL softmax_xent(const REAL *logits, const int *labels, int rows, int classes) {
    REAL loss = 0;
    for (int r = 0; r < rows; r++) {
        const REAL *z = logits + r * classes;
        REAL m = z[0], s = 0;
        for (int c = 1; c < classes; c++)
            m = z[c] > m ? z[c] : m;
        for (int c = 0; c < classes; c++)
            s += exp(z[c] - m);
        loss += log(s) + m - z[labels[r]];
    }
    return loss / rows;
}

/* structs passed as arrays: an (n, 2) array of points */
typedef struct { REAL x, y; } Point;
REAL path_length(const Point *p, int n) {
    REAL len = 0;
    for (int i = 1; i < n; i++) {
        REAL dx = p[i].x - p[i - 1].x, dy = p[i].y - p[i - 1].y;
        len += sqrt(dx * dx + dy * dy);
    }
    return len;
}

/* scalar parameters: gradients with respect to mu and sigma */
REAL gaussian_nll(const REAL *x, int n, REAL mu, REAL sigma) {
    REAL s = 0;
    for (int i = 0; i < n; i++) {
        REAL z = (x[i] - mu) / sigma;
        s += 0.5 * z * z + log(sigma);
    }
    return s;
}

/* an output written through a pointer: out = tanh(A x + b) */
void dense_tanh(const REAL *a, const REAL *x, const REAL *b, REAL *out, int rows, int cols) {
    for (int r = 0; r < rows; r++) {
        REAL s = b[r];
        for (int c = 0; c < cols; c++)
            s += a[r * cols + c] * x[c];
        out[r] = tanh(s);
    }
}

/* in place: y = y * y + a * x (y is input and output) */
void square_axpy(REAL a, const REAL *x, REAL *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = y[i] * y[i] + a * x[i];
}

/* two outputs */
void to_polar(const REAL *xy, REAL *r, REAL *theta, int n) {
    for (int i = 0; i < n; i++) {
        r[i] = sqrt(xy[2 * i] * xy[2 * i] + xy[2 * i + 1] * xy[2 * i + 1]);
        theta[i] = atan2(xy[2 * i + 1], xy[2 * i]);
    }
}

/* a data-dependent loop (Newton's iteration for the cube root) and branches */
static REAL cbrt_newton(REAL v) {
    REAL t = v > 1 ? v : 1;
    for (int k = 0; k < 40 && fabs(t * t * t - v) > 1e-6 * v; k++)
        t = t - (t * t * t - v) / (3 * t * t);
    return t;
}
REAL sum_cbrt_relu(const REAL *x, int n) {
    REAL s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] > 0 ? cbrt_newton(1 + x[i] * x[i]) : 0.5 * x[i];
    return s;
}

/* copies and memset: a smoothed copy of x in a stack buffer */
REAL smooth_energy(const REAL *x, int n) {
    REAL buf[64];
    int m = n < 64 ? n : 64;
    memset(buf, 0, sizeof buf);
    memcpy(buf, x, sizeof(REAL) * (size_t)m);
    REAL e = 0;
    for (int i = 1; i + 1 < m; i++) {
        REAL d = buf[i - 1] - 2 * buf[i] + buf[i + 1];
        e += d * d;
    }
    return e;
}

/* integer result, floating output: not differentiable as a scalar, only via vjp */
int clip_count(const REAL *x, REAL *out, int n, REAL lo, REAL hi) {
    int clipped = 0;
    for (int i = 0; i < n; i++) {
        REAL v = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
        clipped += v != x[i];
        out[i] = v * v;
    }
    return clipped;
}

static int counter;
/* not differentiable: integers only */
int bump(int by) { return counter += by; }

/* a scratch buffer the caller passes, written and read back: its memory carries the
 * derivative from x to the result, so it must stay active even in grad(wrt="x") */
REAL scratch_weighted(const REAL *x, REAL *tmp, const REAL *w, int n) {
    for (int i = 0; i < n; i++)
        tmp[i] = sin(x[i]) * w[i];
    REAL s = 0;
    for (int i = 0; i < n; i++)
        s += tmp[i] * tmp[(i + 1) % n];
    return s;
}
