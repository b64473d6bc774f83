/*
 * p2p: point-to-point traffic only, of every kind, between every pair of ranks (the program the
 * matrix is compared with Open MPI's pml monitoring on).
 *   p2p [big=200000]
 * For each distance d = 1 .. n-1 rank i sends to j = (i+d) % n and receives from (i-d) % n:
 *   k(i,j) = 1 + (i+2j) % 3 messages (tag t = 0, 1, 2) of 100(1+i) + 10j + t bytes, message t by
 *     MPI_Send, MPI_Isend + MPI_Wait, MPI_Ssend for t = 0, 1, 2;
 *   MPI_Sendrecv: 50 + i bytes to j (tag 10);
 *   a persistent send (MPI_Send_init, tag 11) of 30 + j bytes started twice (MPI_Start + MPI_Wait),
 *     then MPI_Request_free;
 *   for d = 1 only: one MPI_Isend + MPI_Wait of `big` bytes (tag 12);
 * the receives are MPI_Irecv of the exact sizes, posted first, completed by one MPI_Waitall per
 * distance (the Sendrecv's receive is its own). Then: MPI_Send of 16 bytes to MPI_PROC_NULL,
 * MPI_Isend of 8 bytes to itself + MPI_Recv + MPI_Wait, and MPI_Comm_split into even and odd
 * ranks, a ring in the new communicator when it has 2 ranks or more (MPI_Sendrecv, 64 bytes to
 * sub-rank +1 from sub-rank -1, tag 20), MPI_Comm_free. Every rank prints "p2p rank R ok" (or
 * FAILED).
 * MPI calls besides: MPI_Init, MPI_Comm_rank (twice: world, then the split communicator),
 * MPI_Comm_size (twice), MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, n, bad;

static void fill(char *p, int len, int from, int to, int tag)
{
    for (int b = 0; b < len; b++) {
        p[b] = (char)(from * 31 + to * 7 + tag * 3 + b);
    }
}

static void verify(const char *p, int len, int from, int to, int tag)
{
    for (int b = 0; b < len; b++) {
        bad += p[b] != (char)(from * 31 + to * 7 + tag * 3 + b);
    }
}

static int k(int i, int j)
{
    return 1 + (i + 2 * j) % 3;
}

static int size_of(int i, int j, int t)
{
    return 100 * (1 + i) + 10 * j + t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int big = argc > 1 ? atoi(argv[1]) : 200000;
    char *bigout = malloc((size_t)big + 1), *bigin = malloc((size_t)big + 1);
    for (int d = 1; d < n; d++) {
        int to = (me + d) % n, from = (me - d + n) % n;
        char in[3][1024], out[3][1024], pin[2][128], pout[128], sin[128], sout[128];
        MPI_Request r[8];
        int nr = 0;
        for (int t = 0; t < k(from, me); t++) {
            MPI_Irecv(in[t], size_of(from, me, t), MPI_BYTE, from, t, MPI_COMM_WORLD, &r[nr++]);
        }
        for (int s = 0; s < 2; s++) {
            MPI_Irecv(pin[s], 30 + me, MPI_BYTE, from, 11, MPI_COMM_WORLD, &r[nr++]);
        }
        if (d == 1) {
            MPI_Irecv(bigin, big, MPI_BYTE, from, 12, MPI_COMM_WORLD, &r[nr++]);
        }
        for (int t = 0; t < k(me, to); t++) {
            fill(out[t], size_of(me, to, t), me, to, t);
            if (t == 0) {
                MPI_Send(out[t], size_of(me, to, t), MPI_BYTE, to, t, MPI_COMM_WORLD);
            } else if (t == 1) {
                MPI_Request q;
                MPI_Isend(out[t], size_of(me, to, t), MPI_BYTE, to, t, MPI_COMM_WORLD, &q);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            } else {
                MPI_Ssend(out[t], size_of(me, to, t), MPI_BYTE, to, t, MPI_COMM_WORLD);
            }
        }
        fill(sout, 50 + me, me, to, 10);
        MPI_Sendrecv(sout, 50 + me, MPI_BYTE, to, 10, sin, 50 + from, MPI_BYTE, from, 10, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        verify(sin, 50 + from, from, me, 10);
        MPI_Request p;
        MPI_Send_init(pout, 30 + to, MPI_BYTE, to, 11, MPI_COMM_WORLD, &p);
        for (int s = 0; s < 2; s++) {
            fill(pout, 30 + to, me, to, 11 + s);
            MPI_Start(&p);
            MPI_Wait(&p, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&p);
        if (d == 1) {
            MPI_Request q;
            fill(bigout, big, me, to, 12);
            MPI_Isend(bigout, big, MPI_BYTE, to, 12, MPI_COMM_WORLD, &q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        MPI_Status st[8];
        MPI_Waitall(nr, r, st);
        for (int t = 0; t < k(from, me); t++) {
            verify(in[t], size_of(from, me, t), from, me, t);
        }
        for (int s = 0; s < 2; s++) {
            verify(pin[s], 30 + me, from, me, 11 + s);
        }
        if (d == 1) {
            verify(bigin, big, from, me, 12);
        }
    }
    char x[64], y[64];
    MPI_Send(x, 16, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Request q;
    fill(x, 8, me, me, 30);
    MPI_Isend(x, 8, MPI_BYTE, me, 30, MPI_COMM_WORLD, &q);
    MPI_Recv(y, 8, MPI_BYTE, me, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    verify(y, 8, me, me, 30);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    int hr, hn;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hn);
    if (hn > 1) {
        fill(x, 64, hr, (hr + 1) % hn, 20);
        MPI_Sendrecv(x, 64, MPI_BYTE, (hr + 1) % hn, 20, y, 64, MPI_BYTE, (hr - 1 + hn) % hn, 20, half,
                     MPI_STATUS_IGNORE);
        verify(y, 64, (hr - 1 + hn) % hn, hr, 20);
    }
    MPI_Comm_free(&half);
    printf("p2p rank %d %s\n", me, bad ? "FAILED" : "ok");
    fflush(stdout);
    free(bigout);
    free(bigin);
    MPI_Finalize();
    return 0;
}
