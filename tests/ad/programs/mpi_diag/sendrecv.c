// Diagnostic: MPI_Sendrecv of differentiable data is not differentiated: enzcc
// must stop at the call (not produce a gradient missing the message).
#include <mpi.h>

double __enzyme_autodiff(void *, ...);

double swap(double *x, int n) {
    double ghost = 0;
    MPI_Sendrecv(x, 1, MPI_DOUBLE, 0, 0, &ghost, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, /* DIAG-LINE */
                 MPI_STATUS_IGNORE);
    return ghost * x[n - 1];
}

int main(int argc, char **argv) {
    double x[2] = {1, 2}, dx[2] = {0};
    MPI_Init(&argc, &argv);
    __enzyme_autodiff((void *)swap, x, dx, 2);
    MPI_Finalize();
    return 0;
}
