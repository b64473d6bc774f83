/*
 * threads: the CPU time a rank's threads take over a run, by kind (the application's thread, the
 * MPI library's threads, the JVM's threads), read from /proc/self/task/<tid>/schedstat (ns on the
 * CPU) just before MPI_Finalize. The work: SECONDS of rounds of computation (a few microseconds),
 * 100 MPI_Comm_rank and one MPI_Allreduce, the shape of an application that calls MPI often.
 *   threads CONFIG SECONDS
 * Prints "threads CONFIG rank R app=MS mpi=MS jvm=MS jvm-threads=N" and, per JVM thread,
 * "thread CONFIG rank R NAME MS". A thread is the JVM's when its name is not the program's (the
 * JVM names each of its threads; the MPI library's keep the program's name).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../bench.h"

static int read_line(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        return -1;
    }
    int ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    if (!ok) {
        return -1;
    }
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *config = argc > 1 ? argv[1] : "run";
    double seconds = argc > 2 ? atof(argv[2]) : 10.0;
    if (seconds <= 0 || seconds > 3600) {
        fprintf(stderr, "usage: threads CONFIG SECONDS (0 < SECONDS <= 3600)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double end = now_ns() / 1e9 + seconds, x = 1.0, sum = 0.0;
    int stop = 0;
    while (!stop) {
        for (int i = 0; i < 20000; i++) {
            x = x * 1.0000001 + 1e-9;
        }
        for (int i = 0; i < 100; i++) {
            int r;
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
        }
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        int mine = now_ns() / 1e9 >= end;
        MPI_Allreduce(&mine, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
    char self[64];
    if (read_line("/proc/self/comm", self, sizeof self) != 0) {
        strcpy(self, "?");
    }
    double app = 0, mpi = 0, jvm = 0;
    int jvm_threads = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') {
            continue;
        }
        char path[300], name[64], stat[128];
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        if (read_line(path, name, sizeof name) != 0) {
            continue;
        }
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
        if (read_line(path, stat, sizeof stat) != 0) {
            continue;
        }
        double ms = strtod(stat, NULL) / 1e6;
        if (atoi(e->d_name) == getpid()) {
            app += ms;
        } else if (strcmp(name, self) == 0) {
            mpi += ms;
        } else {
            jvm += ms;
            jvm_threads++;
            printf("thread %s rank %d %s %.1f\n", config, rank, name, ms);
        }
    }
    if (d) {
        closedir(d);
    }
    printf("threads %s rank %d app=%.1f mpi=%.1f jvm=%.1f jvm-threads=%d (%g)\n", config, rank, app, mpi, jvm,
           jvm_threads, sum > 0 ? 1.0 : 0.0);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
