// The heat equation of heat.c with a non-blocking halo exchange: MPI_Irecv and
// MPI_Isend of both ghost cells, completed by MPI_Waitall, and a last MPI_Isend
// of the boundary completed by MPI_Wait. The reverse starts the reverse transfers
// at the waits' reverses and completes them at the transfers' reverses.
// tol: rel=1e-6 abs=1e-8
// grads: 10
// ranks-agree: no  (the wrap-around term changes with the number of ranks)
#include <stdlib.h>
#include <string.h>
#include "mpi_fd.h"

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 64, STEPS = 30 };

static void exchange(double *u, int m, int rank, int size) {
    MPI_Request reqs[4];
    int k = 0;
    if (rank > 0) {
        MPI_Irecv(&u[0], 1, MPI_DOUBLE, rank - 1, 1, MPI_COMM_WORLD, &reqs[k++]);
        MPI_Isend(&u[1], 1, MPI_DOUBLE, rank - 1, 2, MPI_COMM_WORLD, &reqs[k++]);
    }
    if (rank + 1 < size) {
        MPI_Irecv(&u[m + 1], 1, MPI_DOUBLE, rank + 1, 2, MPI_COMM_WORLD, &reqs[k++]);
        MPI_Isend(&u[m], 1, MPI_DOUBLE, rank + 1, 1, MPI_COMM_WORLD, &reqs[k++]);
    }
    MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE);
}

/* The last rank's first cell goes to rank 0 as an extra term of its loss. */
static double wrap(const double *u, int m, int rank, int size) {
    double got = 0;
    MPI_Request req;
    if (rank == size - 1) {
        MPI_Isend(&u[1], 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (rank == 0) {
        MPI_Irecv(&got, 1, MPI_DOUBLE, size - 1, 9, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    return got * got * u[m];
}

/* u: this rank's m cells with a ghost on each side (u[0], u[m+1]); work: m+2 more. */
__attribute__((noinline)) double heat(double *u, double *work, const double *k, int m, int rank, int size) {
    for (int t = 0; t < STEPS; t++) {
        exchange(u, m, rank, size);
        for (int i = 1; i <= m; i++)
            work[i] = u[i] + k[0] * (u[i - 1] - 2 * u[i] + u[i + 1]) - k[1] * u[i] * u[i] * u[i];
        for (int i = 1; i <= m; i++)
            u[i] = work[i];
    }
    double s = wrap(u, m, rank, size);
    for (int i = 1; i <= m; i++)
        s += u[i] * u[i];
    return s;
}

static double run(const double *u0, double *u, double *work, const double *k, int m, int rank, int size) {
    memcpy(u, u0, (m + 2) * sizeof *u);
    return heat(u, work, k, m, rank, size);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int m = N / size, lo = rank * m;
    double *u0 = calloc(m + 2, sizeof *u0), *u = calloc(m + 2, sizeof *u), *du = calloc(m + 2, sizeof *du);
    double *work = calloc(m + 2, sizeof *work), *dwork = calloc(m + 2, sizeof *dwork);
    double k[2] = {0.2, 0.5}, dk[2] = {0};
    for (int i = 1; i <= m; i++)
        u0[i] = sin(0.1 * (lo + i)) + 0.5;
    memcpy(u, u0, (m + 2) * sizeof *u);
    __enzyme_autodiff((void *)heat, enzyme_dup, u, du, enzyme_dup, work, dwork, enzyme_dup, k, dk, enzyme_const, m,
                      enzyme_const, rank, enzyme_const, size);
    double global[N] = {0}, dglobal[N] = {0}, dk_all[2];
    for (int i = 1; i <= m; i++)
        global[lo + i - 1] = du[i];
    MPI_Allreduce(global, dglobal, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(dk, dk_all, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int g = 0; g < N; g += 9) {  /* perturb cell g on the rank owning it */
        int owner = g / m;
        double zero = 0, *cell = owner == rank ? &u0[g - lo + 1] : &zero;
        MPI_FD_CHECK_AT("u", g, cell, dglobal[g], run(u0, u, work, k, m, rank, size));
    }
    for (int j = 0; j < 2; j++)
        MPI_FD_CHECK("k", k, j, dk_all[j], run(u0, u, work, k, m, rank, size));
    MPI_Finalize();
    return 0;
}
