/*
 * sites_shlib: MPI calls from a shared library (libsitelib.so, beside it) and none of its own
 * besides the start: every rank has the library call MPI_Comm_rank 7 times, and prints
 * "sites_shlib rank R: ok". MPI calls besides: MPI_Init, MPI_Comm_rank, MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>

int sitelib_ranks(int n, int rank);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int bad = sitelib_ranks(7, rank);
    printf("sites_shlib rank %d: %s\n", rank, bad ? "FAILED" : "ok");
    MPI_Finalize();
    return 0;
}
