/*
 * persist: persistent point-to-point requests.
 *   persist [startalls=10] [starts=5] [doubles=100]
 * MPI_Recv_init from the left (tag 1) and from the right (tag 2), MPI_Send_init to the right (tag 1)
 * and to the left (tag 2), `doubles` doubles each (in this order in the request array); then
 * `startalls` rounds of MPI_Startall(4) + MPI_Waitall(4), then `starts` rounds of 4 x MPI_Start
 * + MPI_Waitall(4); then MPI_Request_free of the four. Every rank prints
 * "persist rank R rounds=N ok" (FAILED if a halo had the wrong values).
 * MPI calls besides: MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int startalls = argc > 1 ? atoi(argv[1]) : 10;
    int starts = argc > 2 ? atoi(argv[2]) : 5;
    int m = argc > 3 ? atoi(argv[3]) : 100;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    size_t bytes = sizeof(double) * (size_t)(m > 0 ? m : 1);
    double *from_left = malloc(bytes), *from_right = malloc(bytes), *to_right = malloc(bytes),
           *to_left = malloc(bytes);
    MPI_Request r[4];
    MPI_Status st[4];
    MPI_Recv_init(from_left, m, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Recv_init(from_right, m, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &r[1]);
    MPI_Send_init(to_right, m, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[2]);
    MPI_Send_init(to_left, m, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &r[3]);
    int bad = 0;
    for (int round = 0; round < startalls + starts; round++) {
        for (int j = 0; j < m; j++) {
            to_right[j] = rank * 1e6 + round * 1000.0 + j;
            to_left[j] = -(rank * 1e6 + round * 1000.0 + j);
            from_left[j] = from_right[j] = 0.5;
        }
        if (round < startalls) {
            MPI_Startall(4, r);
        } else {
            for (int k = 0; k < 4; k++) {
                MPI_Start(&r[k]);
            }
        }
        MPI_Waitall(4, r, st);
        for (int j = 0; j < m; j++) {
            bad += from_left[j] != left * 1e6 + round * 1000.0 + j;
            bad += from_right[j] != -(right * 1e6 + round * 1000.0 + j);
        }
    }
    for (int k = 0; k < 4; k++) {
        MPI_Request_free(&r[k]);
    }
    printf("persist rank %d rounds=%d %s\n", rank, startalls + starts, bad ? "FAILED" : "ok");
    fflush(stdout);
    free(from_left);
    free(from_right);
    free(to_right);
    free(to_left);
    MPI_Finalize();
    return 0;
}
