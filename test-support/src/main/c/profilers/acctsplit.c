/*
 * acctsplit.c - a known split of CPU time between the application and MPI, for the accounting
 * tool's sampler: each rank alternates computing for a random 0.5-3 ms of its thread's CPU time
 * with an MPI_Allreduce of a random 1k-64k doubles and, every fourth round, an MPI_Barrier, where
 * the other ranks wait for rank 0's 2 ms more of computing (Open MPI and MPICH poll, so the wait
 * is CPU time), for
 * SECONDS of CPU time. It measures the thread CPU time of every MPI call itself
 * (CLOCK_THREAD_CPUTIME_ID around it) and prints, per rank, in nanoseconds:
 *   split rank=R total=T mpi=M allreduce=A barrier=B
 * (T: from MPI_Init's return to MPI_Finalize, what the sampler samples). Random lengths, so that
 * no phase keeps step with the kernel's tick.
 *   acctsplit [SECONDS] [--own-sigprof]   (--own-sigprof: sets a SIGPROF handler before MPI_Init)
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int64_t wall_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 33;
}

static volatile double sink;

static void compute(int64_t ns)
{
    int64_t end = cpu_ns() + ns;
    double x = sink;
    while (cpu_ns() < end) {
        for (int k = 0; k < 2000; k++) {
            x = x * 1.0000001 + 1e-9;
        }
    }
    sink = x;
}

static void on_prof(int sig)
{
    (void)sig;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 3;
    if (argc > 2 && strcmp(argv[2], "--own-sigprof") == 0) {
        signal(SIGPROF, on_prof);
    }
    MPI_Init(&argc, &argv);
    int64_t t0 = wall_ns(), c0 = cpu_ns();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static double in[65536], out[65536];
    uint64_t seed = 12345 + (uint64_t)rank * 7919, shared = 4242; /* shared: the same counts everywhere */
    int64_t allreduce = 0, barrier = 0;
    int stop = 0;
    for (int round = 0; !stop; round++) {
        compute(500000 + (int64_t)(lcg(&seed) % 2500000));
        int n = 1024 + (int)(lcg(&shared) % (65536 - 1024));
        for (int k = 0; k < n; k++) {
            in[k] = rank + k;
        }
        int mine = cpu_ns() - c0 >= (int64_t)(seconds * 1e9);
        int64_t a = wall_ns();
        /* The rank furthest along decides when all stop: the flag travels with the data. */
        in[0] = mine;
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        allreduce += wall_ns() - a;
        stop = out[0] > 0;
        if (round % 4 == 3) {
            if (rank == 0) {
                compute(2000000); /* the others wait for it in the barrier */
            }
            int64_t b = wall_ns();
            MPI_Barrier(MPI_COMM_WORLD);
            barrier += wall_ns() - b;
        }
    }
    int64_t total = wall_ns() - t0;
    printf("split rank=%d total=%lld mpi=%lld allreduce=%lld barrier=%lld\n", rank, (long long)total,
           (long long)(allreduce + barrier), (long long)allreduce, (long long)barrier);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
