/*
 * sites: the same MPI function called from known lines (the profile's call sites).
 *   sites
 * Every rank calls MPI_Comm_rank 10 times from the line marked SITE-A, 20 times from SITE-B, and
 * 30 times through helper(), whose call is on the line marked SITE-C; then MPI_Barrier once
 * (SITE-D), and prints "sites rank R: ok". Built three ways (test-support/Makefile): sites (PIE,
 * with debug information), sites_nopie (-no-pie) and sites_stripped (no symbols at all).
 * MPI calls besides: MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>

static int bad;

static __attribute__((noinline)) void helper(int rank)
{
    int r = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r); /* SITE-C */
    bad |= r != rank;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 10; i++) {
        int r = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &r); /* SITE-A */
        bad |= r != rank;
    }
    for (int i = 0; i < 20; i++) {
        int r = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &r); /* SITE-B */
        bad |= r != rank;
    }
    for (int i = 0; i < 30; i++) {
        helper(rank);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* SITE-D */
    printf("sites rank %d: %s\n", rank, bad ? "FAILED" : "ok");
    MPI_Finalize();
    return 0;
}
