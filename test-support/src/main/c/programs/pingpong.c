/*
 * pingpong.c - the test program: rank 0 sends K integers to rank 1 one at a time and rank 1
 * sends each back plus 1000 (MPI_Send/MPI_Recv), then every rank calls MPI_Barrier and
 * MPI_Allreduce once. Usage: pingpong [K] (default 3).
 *
 * Per rank, the wrapped calls it makes are exactly: MPI_Init 1, MPI_Comm_rank 1, MPI_Pcontrol(2)
 * 1, MPI_Send K and MPI_Recv K on ranks 0 and 1 (0 elsewhere), MPI_Barrier 1, MPI_Allreduce 1,
 * MPI_Finalize 1. Every rank prints "pingpong: start" before MPI_Init; rank 0 prints one result
 * line that depends only on K and the number of ranks. pingpong_cxx.cpp and pingpong.F90 (built
 * as pingpong_mpif and pingpong_usempi) make the same calls and print the same lines.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    printf("pingpong: start\n");
    fflush(stdout);
    int k = argc > 1 ? atoi(argv[1]) : 3;
    int rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Pcontrol(2);
    int echo_sum = 0;
    for (int i = 1; i <= k && nranks >= 2; i++) {
        int value;
        if (rank == 0) {
            value = i * 7 + 1;
            MPI_Send(&value, 1, MPI_INT, 1, 17, MPI_COMM_WORLD);
            MPI_Recv(&value, 1, MPI_INT, 1, 18, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            echo_sum += value;
        } else if (rank == 1) {
            MPI_Recv(&value, 1, MPI_INT, 0, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            value += 1000;
            MPI_Send(&value, 1, MPI_INT, 0, 18, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int mine = rank + 1, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("pingpong result: ranks=%d K=%d echo_sum=%d allreduce=%d\n", nranks, k, echo_sum, total);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
