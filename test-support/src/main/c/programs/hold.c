/* hold.c - an MPI job that stays up: every rank initialises, meets the others at a barrier, prints
 * "hold rank R of N ready pid P" and then sleeps for up to SECONDS (argument, default 120) before
 * finalising. The launcher tests use it to look at the running job (its processes, their
 * environments) and to stop it with a signal. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size;
    int seconds = argc > 1 ? atoi(argv[1]) : 120;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("hold rank %d of %d ready pid %ld\n", rank, size, (long)getpid());
    fflush(stdout);
    for (int i = 0; i < seconds * 10; i++) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    MPI_Finalize();
    return 0;
}
