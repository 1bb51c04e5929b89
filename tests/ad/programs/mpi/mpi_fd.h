// Finite differences for the MPI programs. What a distributed gradient is the
// gradient of: every rank's `__enzyme_autodiff` seeds its own result with 1, so
// the adjoints (summed over ranks by the program) are those of the sum of all
// ranks' results, F(x) = sum_r f_r(x). `MPI_FD_CHECK(name, arr, i, grad, expr)`
// perturbs arr[i] on every rank by +-h (h = 1e-5, values are of order 1), evaluates `expr` (f_r) on every rank,
// sums over ranks and prints, on rank 0, `grad name<i> <grad> <(F+ - F-)/2h>`.
// `MPI_FD_CHECK_AT(name, label, cell, grad, expr)` perturbs *cell (a pointer
// that may differ between ranks) and prints `label` as the index.
#include <math.h>
#include <mpi.h>
#include <stdio.h>

static double mpi_fd_total(double local) {
    double total;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

#define MPI_FD_CHECK(name, arr, i, grad, expr) MPI_FD_CHECK_AT(name, i, &(arr)[i], grad, expr)

#define MPI_FD_CHECK_AT(name, label, cell, grad, expr)                                    \
    do {                                                                                  \
        int rank_;                                                                        \
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);                                            \
        double keep_ = (*(cell)), h_ = 1e-5;  /* the same on every rank */              \
        (*(cell)) = keep_ + h_;                                                            \
        double fp_ = mpi_fd_total(expr);                                                  \
        (*(cell)) = keep_ - h_;                                                            \
        double fm_ = mpi_fd_total(expr);                                                  \
        (*(cell)) = keep_;                                                                 \
        if (rank_ == 0)                                                                   \
            printf("grad %s%d %.17g %.17g\n", name, (int)(label), (double)(grad), (fp_ - fm_) / (2 * h_)); \
    } while (0)
