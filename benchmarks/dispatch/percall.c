/*
 * percall.c - ns per MPI call through jpmpi's dispatcher, measured side by side in one process.
 *
 * Each variant is a function pointer to the same cheap MPI function reached a different way:
 *   bottom  - the MPI library's PMPI_X itself (jpmpi_resolve past the last level, or PMPI_X
 *             when no dispatcher is loaded)
 *   mpi     - MPI_X as the application sees it (through the dispatcher when it is loaded, through
 *             a classic wrapper when one is linked, else the library)
 *   level0  - level 0's own MPI_X (the wrapper reached directly: the classic wrapper's path)
 *   clock2  - bottom with the clock read before and after each call and the difference summed: what
 *             timing every call costs at the least, whatever a tool does besides (rdtsc on x86-64)
 * "MPI_Isend+Irecv+Waitall" is one exchange of three calls (each reached the variant's way, clock2
 * reading the clock around each of the three). "MPI_Sendrecv/64KiB" is a call of a few microseconds,
 * one a profile times exactly (its calls are long beside two clock reads: PROFILE.md, "Sampled timing").
 * Blocks of N calls alternate between variants (ABCABC...), R rounds; the report gives, per
 * variant, the median ns/call and the median over rounds of (variant - bottom), so slow drifts of
 * the machine cancel out. Run under mpirun with one rank; see run.sh for the configurations.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "jpmpi.h"
#include "../bench.h"

typedef int (*comm_rank_t)(MPI_Comm, int *);
typedef int (*iprobe_t)(int, int, MPI_Comm, int *, MPI_Status *);
typedef int (*send_t)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*sendrecv_t)(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype, int, int, MPI_Comm,
                          MPI_Status *);
typedef int (*isend_t)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*irecv_t)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*waitall_t)(int, MPI_Request *, MPI_Status *);

/* MPI_Sendrecv's communicator: a duplicate of MPI_COMM_WORLD, as libraries and most codes use (a tool
 * maps its ranks to world ranks; MPI_COMM_WORLD's are the same) */
static MPI_Comm dup_comm = MPI_COMM_NULL;

#ifndef PERCALL_LONG_BYTES
#define PERCALL_LONG_BYTES (64 * 1024)
#endif
enum { MAX_VARIANTS = 4, MAX_ROUNDS = 101, MAX_PARTS = 3, LONG_DOUBLES = PERCALL_LONG_BYTES / 8 };

struct variant {
    const char *name;
    jpmpi_function_t fn[MAX_PARTS]; /* the measured call's functions (one but for the exchange) */
    int clocked; /* the clock read around each call */
    double ns[MAX_ROUNDS];
    double delta[MAX_ROUNDS];
};

static inline unsigned long long clock_ticks(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
#endif
}

/* Each call's ticks into the sum when the variant is clocked (the sum is kept: the compiler must read both). */
static volatile unsigned long long clocked_sum;
#define CALL(clocked, expr)                                                                            \
    do {                                                                                               \
        if (clocked) {                                                                                 \
            unsigned long long a_ = clock_ticks();                                                     \
            expr;                                                                                      \
            sum += clock_ticks() - a_;                                                                 \
        } else {                                                                                       \
            expr;                                                                                      \
        }                                                                                              \
    } while (0)

static double block(const char *call, const jpmpi_function_t *fns, long n, int clocked)
{
    jpmpi_function_t fn = fns[0];
    int rank = 0, flag = 0;
    unsigned long long sum = 0;
    double t0 = now_ns();
    if (strcmp(call, "MPI_Comm_rank") == 0) {
        comm_rank_t f = (comm_rank_t)fn;
        for (long i = 0; i < n; i++) {
            CALL(clocked, f(MPI_COMM_WORLD, &rank));
        }
    } else if (strcmp(call, "MPI_Send") == 0) {
        send_t f = (send_t)fn;
        double x = 0;
        for (long i = 0; i < n; i++) {
            CALL(clocked, f(&x, 1, MPI_DOUBLE, MPI_PROC_NULL, 7, MPI_COMM_WORLD));
        }
    } else if (strcmp(call, "MPI_Sendrecv") == 0) {
        /* one double to this rank itself and back, on the duplicate: a real message of the smallest kind */
        sendrecv_t f = (sendrecv_t)fn;
        double x = 1, y = 0;
        for (long i = 0; i < n; i++) {
            CALL(clocked, f(&x, 1, MPI_DOUBLE, 0, 7, &y, 1, MPI_DOUBLE, 0, 7, dup_comm, MPI_STATUS_IGNORE));
        }
    } else if (strcmp(call, "MPI_Sendrecv/64KiB") == 0) {
        /* 64 KiB to this rank itself and back, on the duplicate: a call of a few microseconds */
        sendrecv_t f = (sendrecv_t)fn;
        static double x[LONG_DOUBLES], y[LONG_DOUBLES];
        for (long i = 0; i < n; i++) {
            CALL(clocked, f(x, LONG_DOUBLES, MPI_DOUBLE, 0, 7, y, LONG_DOUBLES, MPI_DOUBLE, 0, 7, dup_comm,
                            MPI_STATUS_IGNORE));
        }
    } else if (strcmp(call, "MPI_Isend+Irecv+Waitall") == 0) {
        /* one double to this rank itself, non-blocking both ways, on the duplicate: a halo exchange's calls */
        isend_t isend = (isend_t)fn;
        irecv_t irecv = (irecv_t)fns[1];
        waitall_t waitall = (waitall_t)fns[2];
        double x = 1, y = 0;
        MPI_Request r[2];
        for (long i = 0; i < n; i++) {
            CALL(clocked, irecv(&y, 1, MPI_DOUBLE, 0, 7, dup_comm, &r[0]));
            CALL(clocked, isend(&x, 1, MPI_DOUBLE, 0, 7, dup_comm, &r[1]));
            CALL(clocked, waitall(2, r, MPI_STATUSES_IGNORE));
        }
    } else {
        iprobe_t f = (iprobe_t)fn;
        for (long i = 0; i < n; i++) {
            CALL(clocked, f(MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        }
    }
    double ns = (now_ns() - t0) / (double)n;
    clocked_sum += sum;
    return ns;
}

/* The jpmpi query functions, if a dispatcher (or the stub) is loaded. */
static jpmpi_function_t jpmpi_lookup(int depth, const char *name)
{
    jpmpi_resolve_t resolve = (jpmpi_resolve_t)(jpmpi_function_t)dlsym(RTLD_DEFAULT, "jpmpi_resolve");
    jpmpi_active_t active = (jpmpi_active_t)(jpmpi_function_t)dlsym(RTLD_DEFAULT, "jpmpi_active");
    return resolve && active && active() ? resolve(depth, name) : NULL;
}

/* call: the label; names, mpi, pmpi: its parts (NULL after the last), their MPI_ and PMPI_ functions */
static void measure_parts(const char *config, const char *call, const char *const *names, const jpmpi_function_t *mpi,
                          const jpmpi_function_t *pmpi, long n, int rounds)
{
    struct variant v[MAX_VARIANTS] = {0};
    int nv = 0;
    jpmpi_level_count_t count = (jpmpi_level_count_t)(jpmpi_function_t)dlsym(RTLD_DEFAULT, "jpmpi_level_count");
    int levels = count ? count() : 0;
    v[nv++].name = "bottom";
    v[nv++].name = "mpi";
    if (levels > 0) {
        v[nv++].name = "level0";
    }
    v[nv].name = "clock2";
    v[nv++].clocked = 1;
    for (int k = 0; k < MAX_PARTS && names[k]; k++) {
        jpmpi_function_t bottom = jpmpi_lookup(levels, names[k]);
        v[0].fn[k] = bottom ? bottom : pmpi[k];
        v[1].fn[k] = mpi[k];
        if (levels > 0) {
            v[2].fn[k] = jpmpi_lookup(0, names[k]);
        }
        v[nv - 1].fn[k] = v[0].fn[k];
    }
    for (int i = 0; i < nv; i++) {
        block(call, v[i].fn, n / 10, v[i].clocked); /* warm up */
    }
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < nv; i++) {
            v[i].ns[r] = block(call, v[i].fn, n, v[i].clocked);
        }
        for (int i = 0; i < nv; i++) {
            v[i].delta[r] = v[i].ns[r] - v[0].ns[r];
        }
    }
    for (int i = 0; i < nv; i++) {
        printf("%-22s %-14s %-7s %8.2f ns/call  %+7.2f ns vs bottom\n", config, call, v[i].name,
               median(v[i].ns, rounds), median(v[i].delta, rounds));
    }
}

static void measure(const char *config, const char *call, jpmpi_function_t mpi, jpmpi_function_t pmpi, long n,
                    int rounds)
{
    const char *names[] = {call, NULL};
    measure_parts(config, call, names, &mpi, &pmpi, n, rounds);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *config = argc > 1 ? argv[1] : "unnamed";
    long n = argc > 2 ? atol(argv[2]) : 2000000;
    int rounds = argc > 3 ? atoi(argv[3]) : 21;
    if (rounds < 1 || rounds > MAX_ROUNDS || n < 10) {
        fprintf(stderr, "usage: percall CONFIG [CALLS-PER-BLOCK >= 10] [ROUNDS 1..%d]\n", MAX_ROUNDS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    measure(config, "MPI_Comm_rank", (jpmpi_function_t)MPI_Comm_rank, (jpmpi_function_t)PMPI_Comm_rank, n, rounds);
    measure(config, "MPI_Send", (jpmpi_function_t)MPI_Send, (jpmpi_function_t)PMPI_Send, n, rounds);
    measure(config, "MPI_Iprobe", (jpmpi_function_t)MPI_Iprobe, (jpmpi_function_t)PMPI_Iprobe, n / 10, rounds);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup_comm);
    measure(config, "MPI_Sendrecv", (jpmpi_function_t)MPI_Sendrecv, (jpmpi_function_t)PMPI_Sendrecv, n / 10, rounds);
    const char *exchange[] = {"MPI_Isend", "MPI_Irecv", "MPI_Waitall", NULL};
    const jpmpi_function_t exchange_mpi[] = {(jpmpi_function_t)MPI_Isend, (jpmpi_function_t)MPI_Irecv,
                                             (jpmpi_function_t)MPI_Waitall};
    const jpmpi_function_t exchange_pmpi[] = {(jpmpi_function_t)PMPI_Isend, (jpmpi_function_t)PMPI_Irecv,
                                              (jpmpi_function_t)PMPI_Waitall};
    measure_parts(config, "MPI_Isend+Irecv+Waitall", exchange, exchange_mpi, exchange_pmpi, n / 10, rounds);
    const char *sendrecv[] = {"MPI_Sendrecv", NULL};
    const jpmpi_function_t sendrecv_mpi[] = {(jpmpi_function_t)MPI_Sendrecv};
    const jpmpi_function_t sendrecv_pmpi[] = {(jpmpi_function_t)PMPI_Sendrecv};
    measure_parts(config, "MPI_Sendrecv/64KiB", sendrecv, sendrecv_mpi, sendrecv_pmpi, n / 200, rounds);
    MPI_Comm_free(&dup_comm);
    MPI_Finalize();
    return 0;
}
