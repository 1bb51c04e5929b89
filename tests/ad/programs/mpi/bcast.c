// Parameters broadcast from rank 0: only rank 0 holds the real values, MPI_Bcast
// gives them to every rank, each rank fits its share of the data with them. The
// reverse reduces the parameters' adjoints onto rank 0 (MPI_Reduce of SUM).
// tol: rel=1e-6 abs=1e-8
// grads: 3
#include <stdlib.h>
#include <string.h>
#include "mpi_fd.h"

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 40, P = 3 };

__attribute__((noinline)) double fit(const double *params, double *local, int lo, int m) {
    memcpy(local, params, P * sizeof *local);
    MPI_Bcast(local, P, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double s = 0;
    for (int i = lo; i < lo + m; i++) {
        double t = 0.1 * i, model = local[0] * exp(-local[1] * t) + local[2] * t;
        double r = model - (1.0 + sin(t));
        s += r * r;
    }
    return s;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int m = N / size, lo = rank * m;
    double p[P] = {0}, dp[P] = {0}, local[P], dlocal[P] = {0};
    if (rank == 0) {  /* other ranks hold zeros: the broadcast overwrites them */
        p[0] = 1.2; p[1] = 0.3; p[2] = 0.05;
    }
    __enzyme_autodiff((void *)fit, enzyme_dup, p, dp, enzyme_dup, local, dlocal, enzyme_const, lo, enzyme_const, m);
    double dp_all[P];
    MPI_Allreduce(dp, dp_all, P, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);  /* all of it is on rank 0 */
    double zero = 0;
    for (int j = 0; j < P; j++)
        MPI_FD_CHECK_AT("p", j, rank == 0 ? &p[j] : &zero, dp_all[j], fit(p, local, lo, m));
    MPI_Finalize();
    return 0;
}
