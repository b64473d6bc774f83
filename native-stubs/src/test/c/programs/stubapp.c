/*
 * stubapp.c - an application linked with -lmpiprofilesupport (before libmpi), the way one that
 * wants jpmpi at link time is built. With the do-nothing stub it runs as a plain MPI program;
 * with a real dispatcher's directory first on LD_LIBRARY_PATH the same binary runs the levels.
 *
 * Rank 0 sends 2 integers to rank 1 (MPI_Send 2 on rank 0, MPI_Recv 2 on rank 1, MPI_Comm_rank 1
 * on every rank). Rank 0 prints what the jpmpi_ queries of jpmpi.h answer:
 *   stubapp: jpmpi_active=<0|1> implementation='<id version>' levels=<n> level0=<entry|->
 *     level0_defines_MPI_Send=<0|1> resolve_differs=<0|1>        (all on one line)
 * (resolve_differs: jpmpi_resolve(0, "MPI_Send") != jpmpi_resolve(1, "MPI_Send"), i.e. level 0
 * has its own MPI_Send) and, after the exchange, "stubapp result: sum=<n>".
 */
#include <mpi.h>
#include <stdio.h>
#include "jpmpi.h"

int main(int argc, char **argv)
{
    int rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (rank == 0) {
        const char *level0 = jpmpi_level_entry(0);
        printf("stubapp: jpmpi_active=%d implementation='%s' levels=%d level0=%s level0_defines_MPI_Send=%d "
               "resolve_differs=%d\n",
               jpmpi_active(), jpmpi_implementation(), jpmpi_level_count(), level0 ? level0 : "-",
               jpmpi_level_defines(0, "MPI_Send"), jpmpi_resolve(0, "MPI_Send") != jpmpi_resolve(1, "MPI_Send"));
        fflush(stdout);
    }
    int sum = 0;
    if (nranks >= 2 && rank == 0) {
        for (int i = 1; i <= 2; i++) {
            MPI_Send(&i, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        }
    } else if (nranks >= 2 && rank == 1) {
        for (int i = 1; i <= 2; i++) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += v * 10;
        }
        printf("stubapp result: sum=%d\n", sum);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
