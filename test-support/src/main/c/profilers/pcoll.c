/*
 * pcoll: persistent collectives. On Open MPI 4.1 they are its MPI extension (mpi-ext.h:
 * MPIX_Allreduce_init, MPIX_Bcast_init); on MPICH 4.0 the MPI 4.0 functions (MPI_Allreduce_init,
 * MPI_Bcast_init).
 *   pcoll [iters=3]
 * Every rank: one Allreduce_init of 2 doubles (MPI_SUM) and one Bcast_init of 4 ints from rank 0 on
 * MPI_COMM_WORLD, then iters x (MPI_Start + MPI_Wait of the allreduce, MPI_Start + MPI_Wait of the
 * bcast), then MPI_Request_free of both. Prints "pcoll rank R: ok" if every result was right.
 * Besides: MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef OPEN_MPI
#include <mpi-ext.h>
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define BCAST_INIT MPIX_Bcast_init
#else
#define ALLREDUCE_INIT MPI_Allreduce_init
#define BCAST_INIT MPI_Bcast_init
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, ok = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 3;
    double in[2], out[2];
    int b[4];
    MPI_Request ar, bc;
    ALLREDUCE_INIT(in, out, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ar);
    BCAST_INIT(b, 4, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bc);
    for (int it = 0; it < iters; it++) {
        in[0] = rank + it;
        in[1] = 1.0;
        MPI_Start(&ar);
        MPI_Wait(&ar, MPI_STATUS_IGNORE);
        ok &= out[1] == size && out[0] == size * (size - 1) / 2.0 + size * it;
        for (int i = 0; i < 4; i++) {
            b[i] = rank == 0 ? 10 * it + i : -1;
        }
        MPI_Start(&bc);
        MPI_Wait(&bc, MPI_STATUS_IGNORE);
        ok &= b[3] == 10 * it + 3;
    }
    MPI_Request_free(&ar);
    MPI_Request_free(&bc);
    printf("pcoll rank %d: %s\n", rank, ok ? "ok" : "WRONG");
    MPI_Finalize();
    return ok ? 0 : 1;
}
