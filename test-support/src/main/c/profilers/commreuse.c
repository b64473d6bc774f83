/*
 * commreuse.c - messages on communicators made and freed in turn, whose handles the library may
 * give again to the next one. 4 ranks, 6 rounds: round k splits MPI_COMM_WORLD into one
 * communicator, in the world's order on even rounds and reversed (key -rank) on odd ones, and each
 * process sends k + 1 ints with MPI_Sendrecv to its communicator rank + 1 (mod 4), then frees it.
 * In world ranks: on even rounds r sends to r + 1, on odd ones to r - 1 (mod 4). The profile's
 * matrix must say so: 3 messages of 36 bytes in all to r + 1, 3 of 48 to r - 1, whatever handle
 * values the communicators had.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        fprintf(stderr, "commreuse: needs 4 ranks, not %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int ok = 1;
    int reused = 0;
    MPI_Comm last = MPI_COMM_NULL;
    for (int k = 0; k < 6; k++) {
        MPI_Comm c;
        MPI_Comm_split(MPI_COMM_WORLD, 0, k % 2 ? -rank : rank, &c);
        reused += k > 0 && c == last;
        int r;
        MPI_Comm_rank(c, &r);
        int out[6], in[6];
        for (int i = 0; i <= k; i++) {
            out[i] = 1000 * rank + i;
            in[i] = -1;
        }
        MPI_Sendrecv(out, k + 1, MPI_INT, (r + 1) % 4, k, in, k + 1, MPI_INT, (r + 3) % 4, k, c, MPI_STATUS_IGNORE);
        /* the world rank that sent to this one: r - 1 on even rounds, r + 1 on odd ones */
        int from = k % 2 ? (rank + 1) % 4 : (rank + 3) % 4;
        for (int i = 0; i <= k; i++) {
            ok &= in[i] == 1000 * from + i;
        }
        last = c;
        MPI_Comm_free(&c);
    }
    printf("commreuse rank %d: %s (%d handles given again)\n", rank, ok ? "ok" : "WRONG", reused);
    MPI_Finalize();
    return ok ? 0 : 1;
}
