/*
 * poll: calls too short to time honestly, beside long ones (the profile's sampled timing).
 *   poll [short=200000] [doubles=131072] [iters=4]
 * Every rank calls MPI_Comm_rank(MPI_COMM_WORLD) `short` times and MPI_Iprobe (tag 99, which no
 * message has) `short`/4 times; MPI_Send of 3 doubles to MPI_PROC_NULL, MPI_Recv of 3 doubles from
 * MPI_PROC_NULL and MPI_Sendrecv of 3 doubles with MPI_PROC_NULL both ways `short`/4 times each (no
 * bytes move); a token of 2 ints passed around the ring `short`/1000 times on a communicator of all
 * ranks in reverse order (MPI_Comm_split with key -rank, made before the ring and freed after it, as
 * a library would): its rank 0 sends to its next rank, then receives from its previous; the others
 * receive, then send: MPI_Send and MPI_Recv of 8 bytes, each world rank sending to world rank - 1
 * (mod size); after each pass, every rank's MPI_Sendrecv of one double to its next rank on the ring,
 * from its previous (8 bytes each way, to world rank - 1); then MPI_Sendrecv_replace of `doubles`
 * doubles to the right, from the left (MPI_COMM_WORLD), `iters` times, and prints "poll rank R: ok"
 * (FAILED if a rank or a message was wrong).
 * MPI calls besides: MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Comm_split, MPI_Comm_free, MPI_Finalize.
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
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int m = argc > 2 ? atoi(argv[2]) : 131072;
    int iters = argc > 3 ? atoi(argv[3]) : 4;
    int bad = 0;
    for (long i = 0; i < n; i++) {
        int r = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        bad |= r != rank;
    }
    for (long i = 0; i < n / 4; i++) {
        int flag = 1;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        bad |= flag != 0;
    }
    for (long i = 0; i < n / 4; i++) {
        double x[3] = {1, 2, 3};
        MPI_Send(x, 3, MPI_DOUBLE, MPI_PROC_NULL, 5, MPI_COMM_WORLD);
        MPI_Recv(x, 3, MPI_DOUBLE, MPI_PROC_NULL, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double y[3] = {4, 5, 6};
        MPI_Sendrecv(x, 3, MPI_DOUBLE, MPI_PROC_NULL, 6, y, 3, MPI_DOUBLE, MPI_PROC_NULL, 6, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        bad |= x[0] != 1 || x[2] != 3 || y[0] != 4 || y[2] != 6;
    }
    MPI_Comm ring;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &ring);
    int cr = size - 1 - rank; /* (the ring's rank) */
    int next = (cr + 1) % size, prev = (cr + size - 1) % size;
    for (long i = 0; i < n / 1000; i++) {
        int token[2] = {cr, (int)i};
        if (cr == 0) {
            MPI_Send(token, 2, MPI_INT, next, 3, ring);
            MPI_Recv(token, 2, MPI_INT, prev, 3, ring, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(token, 2, MPI_INT, prev, 3, ring, MPI_STATUS_IGNORE);
            bad |= token[0] != prev || token[1] != (int)i;
            token[0] = cr;
            MPI_Send(token, 2, MPI_INT, next, 3, ring);
        }
        bad |= token[1] != (int)i;
        double mine = cr * 1e6 + (double)i, theirs = -1;
        MPI_Sendrecv(&mine, 1, MPI_DOUBLE, next, 4, &theirs, 1, MPI_DOUBLE, prev, 4, ring, MPI_STATUS_IGNORE);
        bad |= theirs != prev * 1e6 + (double)i;
    }
    MPI_Comm_free(&ring);
    double *buf = malloc(sizeof(double) * (size_t)m);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int it = 0; it < iters; it++) {
        for (int j = 0; j < m; j++) {
            buf[j] = rank * 1e6 + it * 1e3 + j;
        }
        MPI_Sendrecv_replace(buf, m, MPI_DOUBLE, right, 1, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int j = 0; j < m; j++) {
            bad |= buf[j] != left * 1e6 + it * 1e3 + j;
        }
    }
    printf("poll rank %d: %s\n", rank, bad ? "FAILED" : "ok");
    free(buf);
    MPI_Finalize();
    return 0;
}
