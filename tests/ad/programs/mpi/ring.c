// A ring: every rank sends a block of its values to the next rank and receives
// the previous rank's block (MPI_Send then MPI_Recv: small messages are sent
// eagerly), then combines both nonlinearly. The reverse sends each received
// block's adjoint back to its sender. With one rank the message goes to itself.
// tol: rel=1e-6 abs=1e-8
// grads: 8
// ranks-agree: no  (the ring changes with the number of ranks)
#include <stdlib.h>
#include "mpi_fd.h"

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 32, B = 3 };

__attribute__((noinline)) double ring(const double *x, int lo, int m, int rank, int size) {
    double out[B], in[B];
    for (int j = 0; j < B; j++)
        out[j] = x[lo + j] * x[lo + m - 1 - j];
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Send(out, B, MPI_DOUBLE, next, 7, MPI_COMM_WORLD);
    MPI_Recv(in, B, MPI_DOUBLE, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double s = 0;
    for (int i = lo; i < lo + m; i++)
        s += cos(x[i]) * in[i % B];
    return s;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int m = N / size, lo = rank * m;
    double x[N], dx[N] = {0}, all[N];
    for (int i = 0; i < N; i++)
        x[i] = 0.05 * i + 0.3;
    __enzyme_autodiff((void *)ring, enzyme_dup, x, dx, enzyme_const, lo, enzyme_const, m, enzyme_const, rank,
                      enzyme_const, size);
    MPI_Allreduce(dx, all, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i += 4)
        MPI_FD_CHECK("x", x, i, all[i], ring(x, lo, m, rank, size));
    MPI_Finalize();
    return 0;
}
