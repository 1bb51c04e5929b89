// Forward mode across ranks: a scale broadcast from rank 0, a neighbour's
// boundary value received from the left (MPI_Send/MPI_Recv) and an Allreduce;
// each transfer is repeated on the tangents. Every rank returns the same total
// divided by the number of ranks, so the tangents add up over ranks like the
// results (mpi_fd.h).
// tol: rel=1e-6 abs=1e-8
// grads: 7
#include <stdlib.h>
#include "mpi_fd.h"

extern double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 24 };

__attribute__((noinline)) double spread(const double *x, double *scale, int lo, int m, int rank, int size) {
    MPI_Bcast(scale, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double left = 0;
    if (rank + 1 < size)
        MPI_Send(&x[lo + m - 1], 1, MPI_DOUBLE, rank + 1, 3, MPI_COMM_WORLD);
    if (rank > 0)
        MPI_Recv(&left, 1, MPI_DOUBLE, rank - 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double local = left * x[lo], total;
    for (int i = lo; i < lo + m; i++)
        local += *scale * x[i] * x[i] + (i + 1 < lo + m ? x[i] * x[i + 1] : 0);
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sin(total) / size;
}

static double primal(double *x, double scale0, int lo, int m, int rank, int size) {
    double s = scale0;
    return spread(x, &s, lo, m, rank, size);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int m = N / size, lo = rank * m;
    double x[N], e[N] = {0};
    for (int i = 0; i < N; i++)
        x[i] = 0.1 * sin(i + 1.0);
    double scale0 = rank == 0 ? 0.7 : 0;  /* only rank 0's value counts: it is broadcast */
    for (int j = 0; j < N; j += 4) {
        double s = scale0, ds = 0;
        e[j] = 1;
        double t = __enzyme_fwddiff((void *)spread, enzyme_dup, x, e, enzyme_dup, &s, &ds, enzyme_const, lo,
                                    enzyme_const, m, enzyme_const, rank, enzyme_const, size);
        e[j] = 0;
        double dt = mpi_fd_total(t);  /* collective: on every rank, outside the macro's printf */
        MPI_FD_CHECK("x", x, j, dt, primal(x, scale0, lo, m, rank, size));
    }
    double s = scale0, ds = rank == 0 ? 1 : 0;  /* x is sent: it is enzyme_dup, with a zero tangent */
    double t = __enzyme_fwddiff((void *)spread, enzyme_dup, x, e, enzyme_dup, &s, &ds, enzyme_const, lo,
                                enzyme_const, m, enzyme_const, rank, enzyme_const, size);
    double dt = mpi_fd_total(t), zero = 0;
    MPI_FD_CHECK_AT("scale", 0, rank == 0 ? &scale0 : &zero, dt, primal(x, scale0, lo, m, rank, size));
    MPI_Finalize();
    return 0;
}
