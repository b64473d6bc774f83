/*
 * startup.c - what a Java level adds to MPI_Init: the wall time of MPI_Init (with a Java level the
 * dispatcher starts the JVM inside the first MPI call, before the library's MPI_Init) and the
 * resident set after it, in all and split into anonymous memory (private to the rank) and file
 * or shared memory (libjvm's code, the AOT cache: shared by the ranks of a node). Prints
 * "startup <config> init_ms=<ms> rss_kb=<kB> anon_kb=<kB> file_kb=<kB>"; run.sh runs it in
 * alternating configurations and reports medians and differences. With a count argument it then
 * makes that many MPI_Comm_rank calls (through the Java level: compiled by then, as in a long run)
 * and adds "hot_rss_kb=<kB>", the resident set after them.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A "Name:   123 kB" field of /proc/self/status. */
static long status_kb(const char *name)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    size_t n = strlen(name);
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, name, n) == 0 && line[n] == ':') {
            sscanf(line + n + 1, "%ld", &kb);
        }
    }
    if (f) {
        fclose(f);
    }
    return kb;
}

int main(int argc, char **argv)
{
    const char *config = argc > 1 ? argv[1] : "run";
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    MPI_Init(&argc, &argv);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long rss = status_kb("VmRSS"), anon = status_kb("RssAnon"), file = status_kb("RssFile") + status_kb("RssShmem");
    long hot = argc > 2 ? atol(argv[2]) : 0;
    for (long i = 0; i < hot; i++) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    }
    if (rank == 0) {
        printf("startup %s init_ms=%.1f rss_kb=%ld anon_kb=%ld file_kb=%ld", config, ms, rss, anon, file);
        if (hot > 0) {
            printf(" hot_rss_kb=%ld", status_kb("VmRSS"));
        }
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
