/*
 * halo.c - 1-D Jacobi heat diffusion with halo exchange, the jpmpi demo program.
 *
 * The global rod of size*N cells is split into one block of N cells per rank.
 * Every iteration each rank swaps its edge cells with its left and right
 * neighbours (MPI_PROC_NULL past both ends, where the temperature is held at
 * 0) and applies the explicit update
 *
 *     u'[i] = u[i] + alpha * (u[i-1] - 2 u[i] + u[i+1])
 *
 * Communication used, so that an interposition layer has something to see:
 *   MPI_Bcast      run parameters from rank 0
 *   MPI_Sendrecv   the halo exchange on most iterations
 *   MPI_Irecv/MPI_Isend/MPI_Waitall
 *                  the halo exchange every NONBLOCKING_EVERY-th iteration,
 *                  overlapped with the update of the interior cells
 *   MPI_Allreduce  the max-norm residual every RESIDUAL_EVERY iterations
 *   MPI_Reduce     the total heat left in the rod, to rank 0
 *   MPI_Gather     a per-rank checksum of the final field, to rank 0
 *
 * Rank 0 prints a deterministic summary: for a given rank count and argument
 * list the output is the same on every run, with either MPI and whatever PMPI
 * tools are stacked underneath. The field checksum is bit-exact and does not
 * depend on the decomposition: P ranks x N cells and 1 rank x P*N cells give
 * the same field, so the same checksum, when the halo exchange is right.
 *
 * Usage: halo [cells-per-rank [iterations [tolerance]]]
 *        defaults 100000 cells, 200 iterations, tolerance 0 (run all iterations)
 */
#include <mpi.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CELLS 100000L
#define DEFAULT_ITERS 200L
#define MAX_CELLS (1L << 26)
#define MAX_ITERS 100000000L
#define ALPHA 0.25
#define HOT 100.0
#define HOT_BLOCK 4096L
#define RESIDUAL_EVERY 10L
#define NONBLOCKING_EVERY 4L
#define TAG_TO_LEFT 101
#define TAG_TO_RIGHT 102

enum { P_CELLS, P_ITERS, P_OK, P_COUNT };
enum { D_ALPHA, D_TOL, D_COUNT };

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int parse_double(const char *s, double *out)
{
    char *end = NULL;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !(v >= 0.0))
        return 0;
    *out = v;
    return 1;
}

/* Jacobi update of cells first..last (1-based, inclusive) from u into v. */
static void relax(const double *u, double *v, long first, long last, double alpha)
{
    long i;

    for (i = first; i <= last; ++i)
        v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

/* SplitMix64 finaliser: a cheap, well-mixing 64-bit hash step. */
static uint64_t mix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* Checksum of cells 1..n, the first of which has global index first_global:
 * the wrapping sum over cells of mix64(bits of the value, global index).
 * Addition commutes, so the per-rank sums add up to the same field checksum
 * however the rod is split across ranks, and any changed bit changes it
 * (up to a 2^-64 chance of collision). */
static uint64_t field_checksum(const double *u, long n, long long first_global)
{
    uint64_t sum = 0, bits;
    long i;

    for (i = 1; i <= n; ++i) {
        uint64_t g = (uint64_t)(first_global + (i - 1));
        memcpy(&bits, &u[i], sizeof bits);
        sum += mix64(bits ^ mix64(g));
    }
    return sum;
}

int main(int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank, size, left, right;
    long params[P_COUNT];
    double dparams[D_COUNT];
    long n, iters, it, done = 0, i;
    double alpha, tol, residual = 0.0, local_heat = 0.0, total_heat = 0.0;
    double *u, *v, *tmp;
    uint64_t checksum, *checksums = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    /* Only rank 0 reads the command line; everybody else learns it by broadcast. */
    if (rank == 0) {
        params[P_CELLS] = DEFAULT_CELLS;
        params[P_ITERS] = DEFAULT_ITERS;
        params[P_OK] = 1;
        dparams[D_ALPHA] = ALPHA;
        dparams[D_TOL] = 0.0;
        if (argc > 4
            || (argc > 1 && !parse_long(argv[1], 1, MAX_CELLS, &params[P_CELLS]))
            || (argc > 2 && !parse_long(argv[2], 0, MAX_ITERS, &params[P_ITERS]))
            || (argc > 3 && !parse_double(argv[3], &dparams[D_TOL]))) {
            fprintf(stderr,
                    "usage: %s [cells-per-rank (1..%ld) [iterations (0..%ld) [tolerance (>= 0)]]]\n",
                    argv[0], MAX_CELLS, MAX_ITERS);
            params[P_OK] = 0;
        }
    }
    MPI_Bcast(params, P_COUNT, MPI_LONG, 0, comm);
    MPI_Bcast(dparams, D_COUNT, MPI_DOUBLE, 0, comm);
    if (!params[P_OK]) {
        MPI_Finalize();
        return 2;
    }
    n = params[P_CELLS];
    iters = params[P_ITERS];
    alpha = dparams[D_ALPHA];
    tol = dparams[D_TOL];

    left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    /* Cells 1..n are ours, 0 and n+1 are the halo (ghost) cells. */
    u = calloc((size_t)n + 2, sizeof *u);
    v = calloc((size_t)n + 2, sizeof *v);
    if (u == NULL || v == NULL) {
        fprintf(stderr, "halo: rank %d: out of memory for %ld cells\n", rank, n);
        MPI_Abort(comm, 1);
        return 1;
    }

    /* Blocks of hot cells every third HOT_BLOCK cells of the global rod, so
     * that some blocks straddle rank boundaries. */
    for (i = 1; i <= n; ++i) {
        long long g = (long long)rank * n + (i - 1);
        u[i] = ((g / HOT_BLOCK) % 3 == 0) ? HOT : 0.0;
    }

    for (it = 0; it < iters; ++it) {
        if (it % NONBLOCKING_EVERY == NONBLOCKING_EVERY - 1) {
            MPI_Request req[4];
            /* A real status array rather than MPI_STATUSES_IGNORE: with MPICH's
             * headers GCC 12 misreports the latter as a zero-size buffer
             * (-Wstringop-overflow). */
            MPI_Status st[4];

            MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, TAG_TO_RIGHT, comm, &req[0]);
            MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, TAG_TO_LEFT, comm, &req[1]);
            MPI_Isend(&u[1], 1, MPI_DOUBLE, left, TAG_TO_LEFT, comm, &req[2]);
            MPI_Isend(&u[n], 1, MPI_DOUBLE, right, TAG_TO_RIGHT, comm, &req[3]);
            relax(u, v, 2, n - 1, alpha); /* interior: needs no halo */
            MPI_Waitall(4, req, st);
            relax(u, v, 1, 1, alpha);
            if (n > 1)
                relax(u, v, n, n, alpha);
        } else {
            MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, TAG_TO_LEFT,
                         &u[n + 1], 1, MPI_DOUBLE, right, TAG_TO_LEFT,
                         comm, MPI_STATUS_IGNORE);
            MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, TAG_TO_RIGHT,
                         &u[0], 1, MPI_DOUBLE, left, TAG_TO_RIGHT,
                         comm, MPI_STATUS_IGNORE);
            relax(u, v, 1, n, alpha);
        }
        done = it + 1;

        if (done % RESIDUAL_EVERY == 0 || done == iters) {
            double local = 0.0;

            for (i = 1; i <= n; ++i) {
                double d = fabs(v[i] - u[i]);
                if (d > local)
                    local = d;
            }
            /* The max-norm is exact, so it does not depend on reduction order. */
            MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_MAX, comm);
        }

        /* The ghost cells of v are never written by relax(): at the ends of
         * the rod they stay 0 for good, elsewhere the next exchange fills them. */
        tmp = u;
        u = v;
        v = tmp;

        if (tol > 0.0 && done % RESIDUAL_EVERY == 0 && residual < tol)
            break;
    }

    for (i = 1; i <= n; ++i)
        local_heat += u[i];
    MPI_Reduce(&local_heat, &total_heat, 1, MPI_DOUBLE, MPI_SUM, 0, comm);

    checksum = field_checksum(u, n, (long long)rank * n);
    if (rank == 0) {
        checksums = malloc((size_t)size * sizeof *checksums);
        if (checksums == NULL) {
            fprintf(stderr, "halo: rank 0: out of memory for %d checksums\n", size);
            MPI_Abort(comm, 1);
            return 1;
        }
    }
    MPI_Gather(&checksum, 1, MPI_UINT64_T, checksums, 1, MPI_UINT64_T, 0, comm);

    if (rank == 0) {
        uint64_t field = 0;
        int r;

        for (r = 0; r < size; ++r)
            field += checksums[r];
        printf("halo: %d ranks x %ld cells, alpha %.2f\n", size, n, alpha);
        printf("halo: iterations     %ld\n", done);
        printf("halo: final residual %.6e\n", residual);
        printf("halo: total heat     %.6e\n", total_heat);
        printf("halo: field checksum %016llx\n", (unsigned long long)field);
        fflush(stdout);
        free(checksums);
    }

    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
