/*
 * reqs: many requests, many communicators (the recorder's request table and its map of
 * communicators' world ranks, rec_requests.c and rec_comm.c).
 *   reqs ROUNDS K DUPS
 * ROUNDS rounds, each: K MPI_Irecv of one int from the left neighbour (tag t = 0 .. K-1), K MPI_Isend
 * of one int to the right one (tag t), then one MPI_Waitall of all 2K requests (K sends live at once,
 * 2K handles in one completion call). Then DUPS times: MPI_Comm_dup of MPI_COMM_WORLD, an MPI_Isend
 * of one int to the right neighbour in the duplicate + MPI_Recv from the left + MPI_Wait, and
 * MPI_Comm_free. Every rank prints "reqs rank R ok" (or FAILED).
 * MPI calls besides: MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    int k = argc > 2 ? atoi(argv[2]) : 300;
    int dups = argc > 3 ? atoi(argv[3]) : 1500;
    int right = (me + 1) % n, left = (me + n - 1) % n, bad = 0;
    int *out = malloc(sizeof(int) * (size_t)k), *in = malloc(sizeof(int) * (size_t)k);
    MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * (size_t)k);
    MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * (size_t)k);
    if (!out || !in || !req || !st) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int r = 0; r < rounds; r++) {
        for (int t = 0; t < k; t++) {
            MPI_Irecv(&in[t], 1, MPI_INT, left, t, MPI_COMM_WORLD, &req[t]);
        }
        for (int t = 0; t < k; t++) {
            out[t] = me * 1000000 + r * 1000 + t;
            MPI_Isend(&out[t], 1, MPI_INT, right, t, MPI_COMM_WORLD, &req[k + t]);
        }
        MPI_Waitall(2 * k, req, st);
        for (int t = 0; t < k; t++) {
            bad |= in[t] != left * 1000000 + r * 1000 + t;
        }
    }
    for (int d = 0; d < dups; d++) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        int v = d, w = -1;
        MPI_Request s;
        MPI_Isend(&v, 1, MPI_INT, right, 0, c, &s);
        MPI_Recv(&w, 1, MPI_INT, left, 0, c, MPI_STATUS_IGNORE);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
        bad |= w != d;
        MPI_Comm_free(&c);
    }
    printf("reqs rank %d %s\n", me, bad ? "FAILED" : "ok");
    free(out);
    free(in);
    free(req);
    free(st);
    MPI_Finalize();
    return bad;
}
