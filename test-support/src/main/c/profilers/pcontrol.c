/*
 * pcontrol: MPI_Pcontrol regions.
 *   pcontrol [iters=4] [doubles=100]
 * A "step" is MPI_Sendrecv of `doubles` doubles to the right, from the left (tag 1).
 *   A (recording on):  iters steps; MPI_Isend to the right + MPI_Irecv from the left (tag 2)
 *   MPI_Pcontrol(0)
 *   B (off):           MPI_Waitall of A's two requests; iters steps; MPI_Barrier;
 *                      MPI_Isend to the right + MPI_Irecv from the left (tag 3)
 *   MPI_Pcontrol(1)
 *   C (on):            MPI_Waitall of B's two requests; iters steps
 *   MPI_Pcontrol(2)    (the recorder writes ranks/rank-R.bin; the program copies it to
 *                      flush/rank-R.bin under $JPMPI_OUTPUT_DIR, if set)
 *   D (on):            iters steps; MPI_Bcast of `doubles` doubles from rank 0
 * Every rank prints "pcontrol rank R ok" (FAILED if some message had the wrong values, or
 * "copy failed" if the flush file could not be copied).
 * MPI calls besides: MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static int rank, size, right, left, m, bad;
static double *out, *in;

static void fill(double *p, int who, int tag)
{
    for (int j = 0; j < m; j++) {
        p[j] = who * 1e6 + tag * 1000.0 + j;
    }
}

static void verify(const double *p, int who, int tag)
{
    for (int j = 0; j < m; j++) {
        bad += p[j] != who * 1e6 + tag * 1000.0 + j;
    }
}

static void steps(int iters, int tag)
{
    for (int it = 0; it < iters; it++) {
        fill(out, rank, tag + it);
        MPI_Sendrecv(out, m, MPI_DOUBLE, right, 1, in, m, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        verify(in, left, tag + it);
    }
}

static int copy_flush(void)
{
    const char *dir = getenv("JPMPI_OUTPUT_DIR");
    if (!dir || !*dir) {
        return 1;
    }
    char from[4096], to[4096];
    snprintf(from, sizeof from, "%s/ranks/rank-%d.bin", dir, rank);
    snprintf(to, sizeof to, "%s/flush", dir);
    mkdir(to, 0755);
    snprintf(to, sizeof to, "%s/flush/rank-%d.bin", dir, rank);
    FILE *a = fopen(from, "rb"), *b = a ? fopen(to, "wb") : NULL;
    int ok = a && b;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, a)) > 0) {
        ok = fwrite(buf, 1, n, b) == n;
    }
    if (a) {
        fclose(a);
    }
    if (b) {
        ok = fclose(b) == 0 && ok;
    }
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 4;
    m = argc > 2 ? atoi(argv[2]) : 100;
    right = (rank + 1) % size;
    left = (rank - 1 + size) % size;
    out = malloc(sizeof(double) * (size_t)(m > 0 ? m : 1));
    in = malloc(sizeof(double) * (size_t)(m > 0 ? m : 1));
    double *out2 = malloc(sizeof(double) * (size_t)(m > 0 ? m : 1));
    double *in2 = malloc(sizeof(double) * (size_t)(m > 0 ? m : 1));
    MPI_Request r[2];
    MPI_Status st[2];

    /* A */
    steps(iters, 100);
    fill(out2, rank, 2);
    MPI_Isend(out2, m, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(in2, m, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &r[1]);
    MPI_Pcontrol(0);
    /* B */
    MPI_Waitall(2, r, st);
    verify(in2, left, 2);
    steps(iters, 200);
    MPI_Barrier(MPI_COMM_WORLD);
    fill(out2, rank, 3);
    MPI_Isend(out2, m, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(in2, m, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &r[1]);
    MPI_Pcontrol(1);
    /* C */
    MPI_Waitall(2, r, st);
    verify(in2, left, 3);
    steps(iters, 300);
    MPI_Pcontrol(2);
    int copied = copy_flush();
    /* D */
    steps(iters, 400);
    if (rank == 0) {
        fill(out, 0, 5);
    }
    MPI_Bcast(rank == 0 ? out : in, m, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0) {
        verify(in, 0, 5);
    }
    printf("pcontrol rank %d %s%s\n", rank, bad ? "FAILED" : "ok", copied ? "" : " copy failed");
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
