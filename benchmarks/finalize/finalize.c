/*
 * finalize: how long the application's MPI_Finalize takes, from its call to its return, on every
 * rank, after a little traffic (a ring exchange and an allreduce, ROUNDS times) so that the tools
 * have figures to reduce. Prints "finalize rank R ms M" per rank (after MPI_Finalize returned).
 *   finalize [ROUNDS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "../bench.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 100;
    if (rounds < 0 || rounds > 1000000) {
        rounds = 100;
    }
    double x = rank, sum = 0;
    for (int i = 0; i < rounds; i++) {
        double got = 0;
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, (rank + 1) % size, 0, &got, 1, MPI_DOUBLE, (rank + size - 1) % size, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(&got, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_ns() / 1e6;
    MPI_Finalize();
    double t1 = now_ns() / 1e6;
    printf("finalize rank %d ms %.3f (%g)\n", rank, t1 - t0, sum > -1 ? 1.0 : 0.0);
    return 0;
}
