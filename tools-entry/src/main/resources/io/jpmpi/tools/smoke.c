/* smoke.c - jpmpi doctor's smoke program: every rank adds its rank number with MPI_Allreduce,
 * then all meet at a barrier; each rank prints one line and checks the sum. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    int ok = sum == size * (size - 1) / 2;
    printf("smoke rank %d of %d: sum=%d %s\n", rank, size, sum, ok ? "ok" : "WRONG");
    MPI_Finalize();
    return ok ? 0 : 1;
}
