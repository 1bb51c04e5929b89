// Diagnostic: MPI_Reduce with MPI_MAX on differentiable data is not
// differentiated (MPI_Allreduce's is): a located error.
#include <mpi.h>

double __enzyme_autodiff(void *, ...);

double biggest(double *x) {
    double top;
    MPI_Reduce(x, &top, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD); /* DIAG-LINE */
    return top * top;
}

int main(int argc, char **argv) {
    double x = 3, dx = 0;
    MPI_Init(&argc, &argv);
    __enzyme_autodiff((void *)biggest, &x, &dx);
    MPI_Finalize();
    return 0;
}
