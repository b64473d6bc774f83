/*
 * connect.c - two groups of one job joined by MPI_Comm_connect / MPI_Comm_accept. 4 ranks split
 * in two: A = world {0, 1} accepts, B = world {2, 3} connects (local rank = world rank - first).
 *  - world 0 opens a port (MPI_Open_port) and sends its name, PORT_BYTES chars, to world 2 over
 *    MPI_COMM_WORLD; world 2 receives it;
 *  - A: MPI_Comm_accept on the port (root 0 of A); B: MPI_Comm_connect (root 0 of B);
 *  - over the new inter-communicator, A's local rank l sends 8 ints to B's local rank l
 *    (world 0->2, 1->3), and B's local rank l answers with 4 doubles (2->0, 3->1);
 *  - MPI_Allreduce over it (sum of 3 ints: each group gets the other group's sum);
 *  - MPI_Comm_disconnect, world 0 closes the port, MPI_Comm_free of the halves.
 * Prints "connect rank R: ok" when every value checks.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PORT_BYTES 256

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4 || MPI_MAX_PORT_NAME < PORT_BYTES) {
        fprintf(stderr, "connect: needs 4 ranks, not %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int group = rank / 2, l = rank % 2;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, group, rank, &half);
    char port[MPI_MAX_PORT_NAME];
    memset(port, 0, sizeof port);
    if (rank == 0) {
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Send(port, PORT_BYTES, MPI_CHAR, 2, 0, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Recv(port, PORT_BYTES, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (group == 0) {
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
    } else {
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
    }
    int ok = 1;
    int ints[8];
    double doubles[4];
    if (group == 0) {
        for (int i = 0; i < 8; i++) {
            ints[i] = 100 * rank + i;
        }
        MPI_Send(ints, 8, MPI_INT, l, 1, inter);
        MPI_Recv(doubles, 4, MPI_DOUBLE, l, 2, inter, MPI_STATUS_IGNORE);
        for (int i = 0; i < 4; i++) {
            ok &= doubles[i] == 0.5 * (rank + 2) + i;
        }
    } else {
        MPI_Recv(ints, 8, MPI_INT, l, 1, inter, MPI_STATUS_IGNORE);
        for (int i = 0; i < 8; i++) {
            ok &= ints[i] == 100 * (rank - 2) + i;
            doubles[i % 4] = 0.5 * rank + i % 4;
        }
        MPI_Send(doubles, 4, MPI_DOUBLE, l, 2, inter);
    }
    int mine[3] = {rank, rank, rank}, sum[3];
    MPI_Allreduce(mine, sum, 3, MPI_INT, MPI_SUM, inter);
    ok &= sum[0] == (group == 0 ? 2 + 3 : 0 + 1);
    MPI_Comm_disconnect(&inter);
    if (rank == 0) {
        MPI_Close_port(port);
    }
    MPI_Comm_free(&half);
    printf("connect rank %d: %s\n", rank, ok ? "ok" : "WRONG");
    MPI_Finalize();
    return 0;
}
