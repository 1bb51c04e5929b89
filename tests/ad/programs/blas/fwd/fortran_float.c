// Forward mode through the Fortran interface in single precision (sgemm_, sgemv_,
// ssymv_, sger_, ssyrk_, sdot_, snrm2_, sasum_, saxpy_, sscal_, scopy_; column-major,
// flags as letters of either case), every transpose pair. The reference is the central
// difference, along the same direction, of the same function written with the d
// routines and evaluated in double at the same (float) inputs; float AD carries ~1e-7
// relative rounding per operation, hence rel=1e-5.
// tol: rel=1e-5 abs=1e-5
// grads: 68
// flags: -lopenblas
#include "../blas_check.h"

float __enzyme_fwddiff(void *, ...);

#define DECLARE(T, P)                                                                           \
    void P##gemm_(const char *, const char *, const int *, const int *, const int *, const T *, \
                  const T *, const int *, const T *, const int *, const T *, T *, const int *); \
    void P##gemv_(const char *, const int *, const int *, const T *, const T *, const int *,    \
                  const T *, const int *, const T *, T *, const int *);                         \
    void P##symv_(const char *, const int *, const T *, const T *, const int *, const T *,      \
                  const int *, const T *, T *, const int *);                                    \
    void P##ger_(const int *, const int *, const T *, const T *, const int *, const T *,        \
                 const int *, T *, const int *);                                                \
    void P##syrk_(const char *, const char *, const int *, const int *, const T *, const T *,   \
                  const int *, const T *, T *, const int *);                                    \
    T P##dot_(const int *, const T *, const int *, const T *, const int *);                     \
    T P##nrm2_(const int *, const T *, const int *);                                            \
    T P##asum_(const int *, const T *, const int *);                                            \
    void P##axpy_(const int *, const T *, const T *, const int *, T *, const int *);            \
    void P##scal_(const int *, const T *, T *, const int *);                                    \
    void P##copy_(const int *, const T *, const int *, T *, const int *);
DECLARE(float, s)
DECLARE(double, d)

enum { SA = 16, SB = 16, SC = 16, SV = 8 };
static const int m = 3, n = 2, k = 3, one = 1, two = 2, lda = 4, ldb = 4, ldc = 4;
static char ta, tb;

#define FUNCTION(T, P)                                                                       \
    T f_##P(T alpha, T *A, T *B, T *C, T *x, T *y) {                                         \
        const T half = 0.5, beta = -0.4;                                                     \
        P##gemm_(&ta, &tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &half, C, &ldc);            \
        P##gemv_(&tb, &m, &n, &alpha, C, &ldc, x, &one, &beta, y, &two);                     \
        P##symv_("u", &n, &half, B, &ldb, y, &one, &alpha, x, &two);                         \
        P##ger_(&m, &n, &alpha, y, &two, x, &one, A, &lda);                                  \
        P##syrk_("L", &ta, &m, &k, &half, A, &lda, &alpha, C, &ldc);                         \
        T s = P##dot_(&m, x, &two, y, &one) + P##nrm2_(&m, y, &two) + P##asum_(&m, x, &one); \
        P##axpy_(&m, &alpha, x, &one, y, &one);                                              \
        P##scal_(&m, &beta, y, &two);                                                        \
        P##copy_(&m, y, &one, x, &two);                                                      \
        for (int i = 0; i < SC; i++) s += C[i] * (T)(1 + 0.25 * i);                          \
        for (int i = 0; i < SV; i++) s += (T)(0.5 + 0.1 * i) * y[i] * y[i] + x[i] * x[i];     \
        for (int i = 0; i < SA; i++) s += (T)0.2 * A[i] * A[i];                              \
        return s;                                                                            \
    }
FUNCTION(float, s)
FUNCTION(double, d)

static double A0[SA], B0[SB], C0[SC], x0[SV], y0s[SV], alpha0 = 0.9;
static double dA0[SA], dB0[SB], dC0[SC], dx0[SV], dy0[SV], dalpha0 = -0.3;
static double Cout[SC];

static void move(double *out, const double *base, const double *dir, int len, double t) {
    for (int i = 0; i < len; i++) out[i] = base[i] + t * dir[i];
}

static double at(double t) {
    double A[SA], B[SB], x[SV], y[SV];
    move(A, A0, dA0, SA, t), move(B, B0, dB0, SB, t), move(Cout, C0, dC0, SC, t);
    move(x, x0, dx0, SV, t), move(y, y0s, dy0, SV, t);
    return f_d(alpha0 + t * dalpha0, A, B, Cout, x, y);
}

static void rounded(float *to, double *from, int len) {
    for (int i = 0; i < len; i++) from[i] = to[i] = (float)from[i];
}

int main(void) {
    static const char flags[4][2] = {{'N', 'n'}, {'t', 'N'}, {'n', 'T'}, {'T', 't'}};
    fill(A0, SA, 0.1), fill(B0, SB, 1.1), fill(C0, SC, 2.1), fill(x0, SV, 3.1), fill(y0s, SV, 4.1);
    fill(dA0, SA, 5.1), fill(dB0, SB, 6.1), fill(dC0, SC, 7.1), fill(dx0, SV, 8.1), fill(dy0, SV, 9.1);
    alpha0 = (float)alpha0, dalpha0 = (float)dalpha0;
    float A[SA], B[SB], C[SC], x[SV], y[SV], dA[SA], dB[SB], dC[SC], dx[SV], dy[SV];
    char tag[32];
    for (int fl = 0; fl < 4; fl++) {
        ta = flags[fl][0], tb = flags[fl][1];
        rounded(A, A0, SA), rounded(B, B0, SB), rounded(C, C0, SC), rounded(x, x0, SV);
        rounded(y, y0s, SV), rounded(dA, dA0, SA), rounded(dB, dB0, SB), rounded(dC, dC0, SC);
        rounded(dx, dx0, SV), rounded(dy, dy0, SV);
        float d = __enzyme_fwddiff((void *)f_s, (float)alpha0, (float)dalpha0, A, dA, B, dB, C, dC,
                                   x, dx, y, dy);
        double h = 1e-6, Cu[SC], up = at(h);
        memcpy(Cu, Cout, sizeof Cu);
        double down = at(-h);
        snprintf(tag, sizeof tag, "%c%c", ta, tb);
        grad(tag, "f", 0, d, (up - down) / (2 * h));
        for (int i = 0; i < SC; i++) grad(tag, "C", i, dC[i], (Cu[i] - Cout[i]) / (2 * h));
    }
    return 0;
}
