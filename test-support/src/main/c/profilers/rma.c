/*
 * rma.c - one-sided communication on a window whose ranks are not the world's: the window is
 * created on MPI_COMM_WORLD reordered (split with key -rank: window rank m is world 3 - m) over
 * 9 ints per rank. Window rank m, in a first fence epoch:
 *  - MPI_Put of 4 ints to window rank m+1 (world w-1), elements 0..3, and of 3 ints to
 *    MPI_PROC_NULL (moves nothing);
 *  - MPI_Get of 2 ints from window rank m+2 (world w+2), elements 4..5 (not written this epoch);
 *  - MPI_Accumulate (sum) of 1 int to window rank m+3 (world w+1), element 6;
 * in a second: MPI_Fetch_and_op (sum) of 1 int on window rank m+2 (world w+2), element 7.
 * All ranks mod 4. Every target checks what arrived, every origin what it fetched.
 */
#include <mpi.h>
#include <stdio.h>

#define N 4

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != N) {
        fprintf(stderr, "rma: needs %d ranks, not %d\n", N, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &rev);
    int m = N - 1 - rank; /* this rank's window rank */

    int mem[9];
    for (int i = 0; i < 9; i++) {
        mem[i] = 100 * rank + i;
    }
    MPI_Win win;
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, rev, &win);

    int put[4], none[3] = {0, 0, 0}, got[2] = {-1, -1}, add = 1000 * rank;
    for (int i = 0; i < 4; i++) {
        put[i] = 10000 + 100 * rank + i;
    }
    MPI_Win_fence(0, win);
    MPI_Put(put, 4, MPI_INT, (m + 1) % N, 0, 4, MPI_INT, win);
    MPI_Put(none, 3, MPI_INT, MPI_PROC_NULL, 0, 3, MPI_INT, win);
    MPI_Get(got, 2, MPI_INT, (m + 2) % N, 4, 2, MPI_INT, win);
    MPI_Accumulate(&add, 1, MPI_INT, (m + 3) % N, 6, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    int one = 1, old = -1;
    MPI_Fetch_and_op(&one, &old, MPI_INT, (m + 2) % N, 7, MPI_SUM, win);
    MPI_Win_fence(0, win);

    /* world ranks of the origins that targeted this rank */
    int putter = (rank + 1) % N, accumulator = (rank + N - 1) % N, across = (rank + 2) % N;
    int ok = 1;
    for (int i = 0; i < 4; i++) {
        ok &= mem[i] == 10000 + 100 * putter + i;
    }
    ok &= mem[4] == 100 * rank + 4 && mem[5] == 100 * rank + 5;
    ok &= mem[6] == 100 * rank + 6 + 1000 * accumulator;
    ok &= mem[7] == 100 * rank + 7 + 1 && mem[8] == 100 * rank + 8;
    ok &= got[0] == 100 * across + 4 && got[1] == 100 * across + 5 && old == 100 * across + 7;

    MPI_Win_free(&win);
    MPI_Comm_free(&rev);
    printf("rma rank %d: %s\n", rank, ok ? "ok" : "WRONG");
    MPI_Finalize();
    return ok ? 0 : 1;
}
