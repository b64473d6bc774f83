/* mpitpat: a known communication pattern for the mpit tool's tests.
 *   region 1 (Pcontrol 1): ring of INTS ints on MPI_COMM_WORLD, receives posted before the sends
 *                          (nothing unexpected), then MPI_Alltoall of 1 int on MPI_COMM_WORLD
 *   region 2 (Pcontrol 2): MPI_Comm_split into even/odd ranks, MPI_Alltoall of 2 ints on it
 *   region 3 (Pcontrol 3): sends before receives: every rank sends to its right neighbour, a barrier,
 *                          then the receive (the message waits in the unexpected queue)
 *   region 4 (Pcontrol 4): LOOPS communicators duplicated and freed
 * Prints "mpitpat ok" on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define INTS 10

int main(int argc, char **argv)
{
    int loops = argc > 1 ? atoi(argv[1]) : 100;
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[INTS], in[INTS], a2a_out[64], a2a_in[64];
    for (int i = 0; i < INTS; i++) {
        out[i] = rank;
    }
    for (int i = 0; i < 64; i++) {
        a2a_out[i] = rank;
    }

    MPI_Pcontrol(1);
    MPI_Request rq;
    MPI_Irecv(in, INTS, MPI_INT, left, 1, MPI_COMM_WORLD, &rq);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(out, INTS, MPI_INT, right, 1, MPI_COMM_WORLD);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Alltoall(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD);

    MPI_Pcontrol(2);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Alltoall(a2a_out, 2, MPI_INT, a2a_in, 2, MPI_INT, half);

    MPI_Pcontrol(3);
    MPI_Send(out, INTS, MPI_INT, right, 2, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(in, INTS, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (in[0] != left) {
        fprintf(stderr, "mpitpat: rank %d got %d from %d\n", rank, in[0], left);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    MPI_Pcontrol(4);
    for (int i = 0; i < loops; i++) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_free(&c);
    }
    MPI_Comm_free(&half);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("mpitpat ok\n");
    }
    MPI_Finalize();
    return 0;
}
