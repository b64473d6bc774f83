/*
 * ring: blocking MPI_Send/MPI_Recv of a token around the ring.
 *   ring [iters=10] [doubles=100]
 * Each iteration rank 0 sends `doubles` doubles to rank 1, every other rank receives from its left
 * neighbour, adds 1 to every element and sends to its right; rank 0 receives the token back.
 * MPI calls per rank: MPI_Init, MPI_Comm_rank, MPI_Comm_size, iters x (MPI_Send + MPI_Recv),
 * MPI_Finalize. Rank 0 prints "ring ranks=R iters=N doubles=M ok" (or FAILED) when the token came
 * back right every time.
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
    int iters = argc > 1 ? atoi(argv[1]) : 10;
    int m = argc > 2 ? atoi(argv[2]) : 100;
    double *buf = malloc(sizeof(double) * (size_t)(m > 0 ? m : 1));
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int bad = 0;
    for (int it = 0; it < iters; it++) {
        if (rank == 0) {
            for (int j = 0; j < m; j++) {
                buf[j] = it + j;
            }
            MPI_Send(buf, m, MPI_DOUBLE, right, it, MPI_COMM_WORLD);
            MPI_Recv(buf, m, MPI_DOUBLE, left, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int j = 0; j < m; j++) {
                bad += buf[j] != it + j + size - 1;
            }
        } else {
            MPI_Recv(buf, m, MPI_DOUBLE, left, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int j = 0; j < m; j++) {
                buf[j] += 1;
            }
            MPI_Send(buf, m, MPI_DOUBLE, right, it, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) {
        printf("ring ranks=%d iters=%d doubles=%d %s\n", size, iters, m, bad ? "FAILED" : "ok");
        fflush(stdout);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
