/*
 * threads.c - MPI_THREAD_MULTIPLE through the levels: after MPI_Init_thread the main thread calls
 * MPI_Comm_rank once, then NTHREADS threads each call MPI_Comm_rank and MPI_Send (to
 * MPI_PROC_NULL, so it returns at once) NCALLS times each, concurrently.
 *
 * Per rank, the wrapped calls are exactly: MPI_Init_thread 1, MPI_Comm_rank 1 + NTHREADS*NCALLS
 * (= 400001), MPI_Send NTHREADS*NCALLS (= 400000), MPI_Finalize 1. Each rank prints
 * "threads rank <r>: 4x100000 calls, rank answers ok=400000" (or "threads: provided=<p>" and exit
 * status 2 if the library does not offer MPI_THREAD_MULTIPLE).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>

#define NTHREADS 4
#define NCALLS 100000

static int world_rank;

static void *work(void *arg)
{
    (void)arg;
    long ok = 0;
    for (int i = 0; i < NCALLS; i++) {
        int r = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        ok += r == world_rank;
        MPI_Send(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    }
    return (void *)(intptr_t)ok;
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        printf("threads: provided=%d\n", provided);
        fflush(stdout);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    pthread_t threads[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        pthread_create(&threads[t], NULL, work, NULL);
    }
    long ok = 0;
    for (int t = 0; t < NTHREADS; t++) {
        void *result;
        pthread_join(threads[t], &result);
        ok += (long)(intptr_t)result;
    }
    printf("threads rank %d: %dx%d calls, rank answers ok=%ld\n", world_rank, NTHREADS, NCALLS, ok);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
