/*
 * hwcthreads.c - MPI calls from a second thread (MPI_THREAD_MULTIPLE), for the hwc tool.
 *   hwcthreads ROUNDS
 * The main thread runs ROUNDS x (a busy loop + MPI_Allreduce on MPI_COMM_WORLD); a second thread,
 * at the same time, ROUNDS x MPI_Allgather of 32 KiB per rank on its own duplicate of
 * MPI_COMM_WORLD. MPI_Allgather is called by the second thread only, so a tool that attributes
 * it saw that thread's calls. Prints "hwcthreads ranks=R rounds=N ok" on rank 0.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define CHUNK (32 * 1024)

static int rounds;
static MPI_Comm second_comm;

static void *second(void *arg)
{
    (void)arg;
    int size;
    MPI_Comm_size(second_comm, &size);
    char *mine = calloc(CHUNK, 1), *all = calloc((size_t)CHUNK * (size_t)size, 1);
    for (int i = 0; i < rounds; i++) {
        MPI_Allgather(mine, CHUNK, MPI_CHAR, all, CHUNK, MPI_CHAR, second_comm);
    }
    free(mine);
    free(all);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0) {
            fprintf(stderr, "hwcthreads: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        }
        MPI_Finalize();
        return 2;
    }
    rounds = argc > 1 ? atoi(argv[1]) : 200;
    MPI_Comm_dup(MPI_COMM_WORLD, &second_comm);
    pthread_t t;
    pthread_create(&t, NULL, second, NULL);
    volatile double x = 1.0;
    for (int i = 0; i < rounds; i++) {
        for (int k = 0; k < 200000; k++) {
            x = x * 1.0000001 + 1e-9;
        }
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    pthread_join(t, NULL);
    MPI_Comm_free(&second_comm);
    if (rank == 0) {
        printf("hwcthreads ranks=%d rounds=%d ok\n", size, rounds);
    }
    MPI_Finalize();
    return 0;
}
