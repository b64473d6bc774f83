/*
 * sweep.c - a rank that only computes, for what sampling costs it per second (sampling.sh).
 *
 *   sweep [SECONDS] [KB]
 *
 * Between MPI_Init and MPI_Finalize each rank sweeps an array of KB kilobytes (a multiply-add and
 * a sum over every element, so the array stays in the core's caches as a solver's working set
 * does) for SECONDS of wall time, then rank 0 prints the sweeps per second of every rank together:
 * "sweeps_per_s=<sum>". No MPI call between the two, so the whole time is the application's, and
 * whatever a tool does meanwhile (a thread that wakes, a signal, a stack walk) is taken from it.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double seconds = argc > 1 ? atof(argv[1]) : 5.0;
    long kb = argc > 2 ? atol(argv[2]) : 512;
    if (seconds <= 0 || kb <= 0) {
        fprintf(stderr, "usage: sweep [SECONDS > 0] [KB > 0]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t n = (size_t)kb * 1024 / sizeof(double);
    double *a = malloc(n * sizeof *a);
    if (a == NULL) {
        fprintf(stderr, "sweep: cannot allocate %ld KB\n", kb);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < n; i++) {
        a[i] = (double)i * 1e-9;
    }
    double sum = 0;
    long sweeps = 0;
    double start = now(), elapsed;
    do {
        for (size_t i = 0; i < n; i++) {
            a[i] = a[i] * 0.9999999 + 1e-12;
            sum += a[i];
        }
        sweeps++;
        elapsed = now() - start;
    } while (elapsed < seconds);
    double rate = (double)sweeps / elapsed, total = 0;
    MPI_Reduce(&rate, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("sweeps_per_s=%.3f checksum=%d\n", total, sum > 0);
    }
    free(a);
    MPI_Finalize();
    return 0;
}
