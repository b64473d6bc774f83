/*
 * acct.c - the accounting tool's workload: ITERS MPI_Allreduce of 1000 doubles (the most time and
 * calls by far), an MPI_Bcast of 100 ints every tenth iteration, a little computation between
 * them (application time outside MPI), one MPI_Barrier at the end. Every rank also says whether a
 * JVM is in its process (libjvm.so in /proc/self/maps: the tool alone must not start one), how long
 * MPI_Init took and its resident memory before MPI_Finalize (benchmarks/accounting/run.sh):
 *   acct rank=R jvm=0|1 init_ms=T rss_kb=K
 *   acct ITERS
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* VmRSS of this process in kB (-1 if unreadable). */
static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
        }
    }
    if (f) {
        fclose(f);
    }
    return kb;
}

static int has_jvm(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        found = strstr(line, "/libjvm.so") != NULL;
    }
    if (f) {
        fclose(f);
    }
    return f ? found : -1;
}

int main(int argc, char **argv)
{
    double t0 = now_ms();
    MPI_Init(&argc, &argv);
    double init_ms = now_ms() - t0;
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
    printf("acct rank=%d jvm=%d init_ms=%.1f rss_kb=%ld\n", rank, has_jvm(), init_ms, rss_kb());
    if (rank == 0) {
        printf("acct ranks=%d iters=%d ok\n", size, iters);
    }
    MPI_Finalize();
    return 0;
}
