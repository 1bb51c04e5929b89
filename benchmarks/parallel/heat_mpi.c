/* A 1-D heat equation over MPI ranks (halo exchange with MPI_Send/MPI_Recv), as
 * benchmarks/parallel/mpi_scaling.py times it: rank 0 prints `objective <s>` and
 * `gradient <s>` (best of the repetitions, between barriers). The global grid has
 * N cells whatever the number of ranks (strong scaling). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#ifndef N
#define N (1 << 18)
#endif
#define STEPS 20

static void exchange(double *u, int m, int rank, int size) {
    for (int phase = 0; phase < 2; phase++) {
        if ((rank + phase) % 2 == 0) {
            if (rank + 1 < size) MPI_Send(&u[m], 1, MPI_DOUBLE, rank + 1, 1, MPI_COMM_WORLD);
            if (rank > 0) MPI_Send(&u[1], 1, MPI_DOUBLE, rank - 1, 2, MPI_COMM_WORLD);
        } else {
            if (rank > 0) MPI_Recv(&u[0], 1, MPI_DOUBLE, rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rank + 1 < size) MPI_Recv(&u[m + 1], 1, MPI_DOUBLE, rank + 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
}

__attribute__((noinline)) double heat(double *u, double *work, const double *k, int m, int rank, int size) {
    for (int t = 0; t < STEPS; t++) {
        exchange(u, m, rank, size);
        for (int i = 1; i <= m; i++)
            work[i] = u[i] + k[0] * (u[i - 1] - 2 * u[i] + u[i + 1]) - k[1] * u[i] * u[i] * u[i];
        for (int i = 1; i <= m; i++)
            u[i] = work[i];
    }
    double s = 0, total;
    for (int i = 1; i <= m; i++)
        s += u[i] * u[i];
    MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total / size;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, reps = argc > 1 ? atoi(argv[1]) : 5;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int m = N / size;
    double *u0 = calloc(m + 2, sizeof *u0), *u = calloc(m + 2, sizeof *u), *du = calloc(m + 2, sizeof *du);
    double *work = calloc(m + 2, sizeof *work), *dwork = calloc(m + 2, sizeof *dwork);
    double k[2] = {0.2, 0.5}, dk[2];
    for (int i = 1; i <= m; i++)
        u0[i] = 0.5 + 0.001 * ((rank * m + i) % 1000);
    double best_f = 1e30, best_g = 1e30, sink = 0;
    for (int r = 0; r < reps; r++) {
        memcpy(u, u0, (m + 2) * sizeof *u);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        sink += heat(u, work, k, m, rank, size);
        MPI_Barrier(MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        memcpy(u, u0, (m + 2) * sizeof *u);
        memset(du, 0, (m + 2) * sizeof *du);
        memset(dk, 0, sizeof dk);
        MPI_Barrier(MPI_COMM_WORLD);
        double t2 = MPI_Wtime();
        __enzyme_autodiff((void *)heat, enzyme_dup, u, du, enzyme_dup, work, dwork, enzyme_const, k, enzyme_const, m,
                          enzyme_const, rank, enzyme_const, size);
        MPI_Barrier(MPI_COMM_WORLD);
        double t3 = MPI_Wtime();
        if (t1 - t0 < best_f) best_f = t1 - t0;
        if (t3 - t2 < best_g) best_g = t3 - t2;
    }
    if (rank == 0)
        printf("objective %.6g\ngradient %.6g\ncheck %.6g %.6g\n", best_f, best_g, sink, du[1]);
    MPI_Finalize();
    return 0;
}
