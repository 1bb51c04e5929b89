// An Allreduce loss: each rank owns a slice of x, computes a local sum of a
// nonlinear function, and MPI_Allreduce(SUM) gives every rank the total, which
// the loss squares (each rank returns its share: the distributed objective is
// the sum of the ranks' results, mpi_fd.h). The reverse allreduces the adjoints.
// tol: rel=1e-6 abs=1e-8
// grads: 8
#include <stdlib.h>
#include "mpi_fd.h"

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 64 };

__attribute__((noinline)) double loss(const double *x, int lo, int hi, int size) {
    double local = 0, total;
    for (int i = lo; i < hi; i++)
        local += sin(x[i]) * x[i];
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total * total / size;  // the ranks' results add up to total^2 at every rank count
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int lo = rank * N / size, hi = (rank + 1) * N / size;
    double x[N], dx[N] = {0}, all[N];
    for (int i = 0; i < N; i++)
        x[i] = 0.1 * i - 2;
    __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, lo, enzyme_const, hi, enzyme_const, size);
    MPI_Allreduce(dx, all, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);  // each entry is owned by one rank
    for (int i = 0; i < N; i += 9)
        MPI_FD_CHECK("x", x, i, all[i], loss(x, lo, hi, size));
    MPI_Finalize();
    return 0;
}
