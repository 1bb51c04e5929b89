// MPI_Allreduce with MPI_MAX and MPI_MIN: the global maximum and minimum of a
// function over all ranks' elements, and an array maximum where each element has
// one owner. Each element of a result's adjoint goes to the rank that won it;
// in forward mode the result's tangent is the winner's.
// tol: rel=1e-6 abs=1e-8
// grads: 11
// (the winners: rank 0 of 1, rank 1 of 2, rank 3 of 4 for the maximum)
#include <stdlib.h>
#include "mpi_fd.h"

extern double __enzyme_autodiff(void *, ...);
extern double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 36 };

__attribute__((noinline)) double extremes(const double *x, int lo, int m, int size) {
    double local[2] = {-INFINITY, -INFINITY}, global[2], lmin = INFINITY, gmin;
    double own[N], all[N];
    for (int i = 0; i < N; i++)
        own[i] = -INFINITY;
    for (int i = lo; i < lo + m; i++) {
        double v = sin(3 * x[i]) + x[i] * x[i];
        local[0] = fmax(local[0], v);
        local[1] = fmax(local[1], -cos(x[i]) * x[i]);
        lmin = fmin(lmin, v * x[i]);
        own[i] = x[i] * v;
    }
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&lmin, &gmin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(own, all, N, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double s = global[0] * global[0] + 2 * global[1] + 3 * gmin;
    for (int i = 0; i < N; i++)
        s += 0.01 * all[i] * all[i];
    return s / size;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int m = N / size, lo = rank * m;
    double x[N], dx[N] = {0}, sum[N];
    for (int i = 0; i < N; i++)
        x[i] = 0.07 * i - 0.6 + 0.01 * sin(5.0 * i);  /* the maximum is on the last rank */
    __enzyme_autodiff((void *)extremes, enzyme_dup, x, dx, enzyme_const, lo, enzyme_const, m, enzyme_const, size);
    MPI_Allreduce(dx, sum, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double best = -INFINITY, worst = INFINITY;  /* check the elements that win too */
    int arg_best = 0, arg_worst = 0;
    for (int i = 0; i < N; i++) {
        double v = sin(3 * x[i]) + x[i] * x[i];
        if (v > best) { best = v; arg_best = i; }
        if (v * x[i] < worst) { worst = v * x[i]; arg_worst = i; }
    }
    MPI_FD_CHECK("x", x, arg_best, sum[arg_best], extremes(x, lo, m, size));
    MPI_FD_CHECK("x", x, arg_worst, sum[arg_worst], extremes(x, lo, m, size));
    for (int i = 1; i < N; i += 5)
        MPI_FD_CHECK("x", x, i, sum[i], extremes(x, lo, m, size));
    int dirs[2] = {arg_best, arg_worst};
    for (int k = 0; k < 2; k++) {  /* forward mode, tangent e_i */
        double e[N] = {0};
        e[dirs[k]] = 1;
        double t = mpi_fd_total(__enzyme_fwddiff((void *)extremes, enzyme_dup, x, e, enzyme_const, lo, enzyme_const, m,
                                                 enzyme_const, size));
        MPI_FD_CHECK("fwd.x", x, dirs[k], t, extremes(x, lo, m, size));
    }
    MPI_Finalize();
    return 0;
}
