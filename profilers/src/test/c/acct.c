/*
 * acct.c - the accounting tool's workload: ITERS MPI_Allreduce of 1000 doubles (the most time and
 * calls by far), an MPI_Bcast of 100 ints every tenth iteration, a little computation between
 * them (application time outside MPI), one MPI_Barrier at the end.
 *   acct ITERS
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
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    static double in[1000], out[1000];
    static int ints[100];
    volatile double sink = 0;
    for (int i = 0; i < iters; i++) {
        for (int k = 0; k < 1000; k++) {
            in[k] = rank + i + k;
        }
        for (int k = 0; k < 20000; k++) {
            sink += (double)k * 1e-9;
        }
        MPI_Allreduce(in, out, 1000, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (i % 10 == 0) {
            MPI_Bcast(ints, 100, MPI_INT, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("acct ranks=%d iters=%d ok\n", size, iters);
    }
    MPI_Finalize();
    return 0;
}
