/* jpmpi-mpit-probe: the smallest MPI program, run on one rank by `jpmpi mpit list` so that the
 * mpit tool's Java level can describe the MPI's variables before and after MPI_Init. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
