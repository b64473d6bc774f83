/*
 * exchange.c - a halo exchange's calls at their cheapest: every rank posts MPI_Irecv of one double
 * from its left neighbour and MPI_Isend of one double to its right one, then MPI_Waitall of both,
 * N times in a round (after an MPI_Barrier), ROUNDS rounds; rank 0 prints the fastest round's ns per
 * exchange. A real message between two processes, so the recorder's handling of a non-blocking send
 * to another rank is in it (percall.c's exchange to the rank itself is not: no matrix entry).
 *   exchange [N=100000] [ROUNDS=7]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (me + 1) % size, left = (me + size - 1) % size, bad = 0;
    double best = -1;
    for (int r = 0; r < rounds; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now_ns();
        for (long i = 0; i < n; i++) {
            double out = me + (double)i, in = -1;
            MPI_Request req[2];
            MPI_Status st[2]; /* (not MPI_STATUSES_IGNORE: GCC reads MPICH's as an array of size 0) */
            MPI_Irecv(&in, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(&out, 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, st);
            bad |= in != left + (double)i;
        }
        double ns = (now_ns() - t0) / (double)n;
        best = best < 0 || ns < best ? ns : best;
    }
    if (bad) {
        fprintf(stderr, "exchange rank %d: a wrong message\n", me);
    }
    if (me == 0) {
        printf("%.1f\n", best);
    }
    MPI_Finalize();
    return bad;
}
