/* jpmpi-mpit-probe: the smallest MPI program, run on one rank by `jpmpi mpit list` so that the
 * mpit tool's Java level can describe the MPI's variables before and after MPI_Init.
 * `jpmpi-mpit-probe exchange` (the launcher's AOT training, tools-entry's LauncherTraining, on 2 ranks)
 * also makes the calls a job's profile usually has: messages of several sizes to its neighbours, a
 * reduction, a broadcast and a barrier, so that the launcher's merge and reports of such a profile
 * run in the training and are in its cache. */
#include <mpi.h>
#include <string.h>

static char out[65536], in[65536];

static void exchange(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int n = 1; n <= (int)sizeof out; n *= 16) {
        MPI_Request r[2];
        MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: gcc takes MPICH's for an array of none */
        MPI_Irecv(in, n, MPI_CHAR, left, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, n, MPI_CHAR, right, 0, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, st);
        MPI_Sendrecv(out, n, MPI_CHAR, right, 1, in, n, MPI_CHAR, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    double x = rank, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(&sum, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "exchange") == 0) {
        exchange();
    }
    MPI_Finalize();
    return 0;
}
