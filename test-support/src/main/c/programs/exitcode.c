/* exitcode.c - an MPI program that finishes normally but whose rank 0 exits with the status given
 * as its argument (the others with 0): the launcher must return it. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return rank == 0 && argc > 1 ? atoi(argv[1]) : 0;
}
