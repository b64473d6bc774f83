/*
 * sendloop.c - one cheap MPI call in a tight loop: MPI_Send of 0 bytes to MPI_PROC_NULL, which
 * returns at once. Usage: sendloop CALLS. Prints "sendloop rank <r>: calls=<CALLS>". Used to
 * check that a Java level allocates nothing per intercepted call.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 1000000;
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long i = 0; i < calls; i++) {
        MPI_Send(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    }
    printf("sendloop rank %d: calls=%ld\n", rank, calls);
    MPI_Finalize();
    return 0;
}
