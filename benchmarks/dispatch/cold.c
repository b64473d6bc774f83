/*
 * cold.c - what a level costs a call when the application's own work between two MPI calls pushes
 * the tool's code and data out of the caches: the loop of HPCC's MPIRandomAccess, one update of a
 * random word of a large table, then one MPI call (an empty MPI_Iprobe, or MPI_Testany polling one
 * receive that never completes, with a send of its own pending so that the profile follows a request).
 *   cold CALLS MIWORDS iprobe|testany|none      (a table of MIWORDS x 2^20 words of 8 bytes)
 * Prints the nanoseconds per iteration of each of REPS passes over CALLS iterations (the table is
 * the same one, already in memory). One rank.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 5

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long calls = argc > 1 ? atol(argv[1]) : 5000000;
    size_t words = (size_t)(argc > 2 ? atol(argv[2]) : 4) << 20;
    const char *what = argc > 3 ? argv[3] : "iprobe";
    int which = strcmp(what, "testany") == 0 ? 2 : strcmp(what, "none") == 0 ? 0 : 1;
    uint64_t *table = calloc(words, sizeof *table);
    if (!table || (words & (words - 1)) != 0) {
        fprintf(stderr, "cold: MIWORDS must be a power of 2 and the table must fit in memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int me, buf = 0, out = 1, in = 0, idx, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Request recv, send;
    MPI_Irecv(&buf, 1, MPI_INT, me, 1, MPI_COMM_WORLD, &recv);
    MPI_Isend(&out, 1, MPI_INT, me, 2, MPI_COMM_WORLD, &send);
    uint64_t ran = 1;
    printf("cold %s:", what);
    for (int rep = 0; rep < REPS; rep++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (long i = 0; i < calls; i++) {
            ran = (ran << 1) ^ ((int64_t)ran < 0 ? 7 : 0); /* HPCC's generator */
            table[ran & (words - 1)] ^= ran;
            if (which == 1) {
                MPI_Iprobe(me, 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            } else if (which == 2) {
                MPI_Testany(1, &recv, &idx, &flag, MPI_STATUS_IGNORE);
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        printf(" %.2f", ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)calls);
    }
    printf(" ns/iteration\n");
    MPI_Cancel(&recv);
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
    MPI_Recv(&in, 1, MPI_INT, me, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    free(table);
    MPI_Finalize();
    return 0;
}
