// MPI_Reduce onto rank 0: each rank sums its slice (float and double buffers),
// only rank 0 turns the totals into the loss (the other ranks return 0). The
// reverse broadcasts the totals' adjoints from rank 0 to every rank.
// tol: rel=1e-5 abs=1e-6
// grads: 8
#include <stdlib.h>
#include "mpi_fd.h"

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 48 };

__attribute__((noinline)) double reduced(const double *x, const float *w, int lo, int m, int rank) {
    double part[2] = {0, 0}, total[2] = {0, 0};
    float wpart = 0, wtotal = 0;
    for (int i = lo; i < lo + m; i++) {
        part[0] += x[i] * x[i];
        part[1] += sin(x[i]) * w[i];
        wpart += w[i] * w[i];
    }
    MPI_Reduce(part, total, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&wpart, &wtotal, 1, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    return rank == 0 ? total[0] * total[1] + wtotal : 0.0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int m = N / size, lo = rank * m;
    double x[N], dx[N] = {0}, all[N];
    float w[N], dw[N] = {0}, dw_all[N];
    for (int i = 0; i < N; i++) {
        x[i] = 0.02 * i - 0.4;
        w[i] = 0.5f + 0.01f * i;
    }
    __enzyme_autodiff((void *)reduced, enzyme_dup, x, dx, enzyme_dup, w, dw, enzyme_const, lo, enzyme_const, m,
                      enzyme_const, rank);
    MPI_Allreduce(dx, all, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(dw, dw_all, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i += 8)
        MPI_FD_CHECK("x", x, i, all[i], reduced(x, w, lo, m, rank));
    /* float data: an analytic check (finite differences in float are too coarse) */
    double t0 = 0;
    for (int i = 0; i < N; i++) { t0 += x[i] * x[i]; }
    for (int i = 0; i < N; i += 24) {
        double ref = t0 * sin(x[i]) + 2.0 * w[i];
        if (rank == 0) printf("grad w%d %.17g %.17g\n", i, (double)dw_all[i], ref);
    }
    MPI_Finalize();
    return 0;
}
