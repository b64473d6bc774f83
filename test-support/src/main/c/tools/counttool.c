/*
 * counttool.c - a classic PMPI profiling tool (it knows nothing of jpmpi): it wraps MPI_Init,
 * MPI_Init_thread and MPI_Finalize, counts MPI_Send, MPI_Recv, MPI_Barrier, MPI_Allreduce and
 * MPI_Comm_rank with C11 atomics (calls may come from many threads), and prints at MPI_Finalize,
 * in one write to stdout:
 *   count <name> rank <r>: MPI_Init=<n> MPI_Send=<n> MPI_Recv=<n> MPI_Barrier=<n>
 *     MPI_Allreduce=<n> MPI_Comm_rank=<n> MPI_Finalize=<n>          (all on one line)
 * MPI_Init counts MPI_Init and MPI_Init_thread. If its MPI_Finalize is never called (a level
 * the program's calls do not reach) it prints the same line at process exit, with
 * MPI_Finalize=0, so a test sees the zeros instead of a missing line.
 *
 * Like most such tools it asks for its rank with PMPI_Comm_rank once, right after PMPI_Init:
 * under jpmpi that call reaches the next level below, so a counting level below this one
 * counts one MPI_Comm_rank more than the program made. Its MPI_Pcontrol prints
 * "pcontrol <name> <level> rank <r>" and calls PMPI_Pcontrol.
 * Built as libcount.so (TOOL_NAME "count") and libcount2.so (TOOL_NAME "count2").
 *
 * Built with -DLEAVE as libleave.so (TOOL_NAME "leave"), it also leaves the chain once
 * (jpmpi_level_leave, jpmpi.h, looked up with dlsym): right after PMPI_Init, or, with LEAVE_AT=n,
 * inside its n-th MPI_Send wrapper, while the program's other threads keep calling. What it leaves
 * is LEAVE_FUNCTIONS: names ("MPI_Send,MPI_Comm_rank"), or "all-but:" and the names it keeps. Its
 * count line then ends with left=<functions left> send_at=<its MPI_Send count> rank_at=<its
 * MPI_Comm_rank count when jpmpi_level_leave returned> defines_send=<jpmpi_level_defines(its level,
 * "MPI_Send") after>.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TOOL_NAME
#define TOOL_NAME "count"
#endif

static atomic_long n_init, n_send, n_recv, n_barrier, n_allreduce, n_comm_rank, n_finalize;
static atomic_int reported;
static int my_rank = -1;

#ifdef LEAVE
#include <dlfcn.h>
#include "jpmpi.h"

static atomic_int leave_once;
static long left = -1, send_at = -1, rank_at = -1, defines_send = -1;

/* Leaves the chain for LEAVE_FUNCTIONS; the counts at that moment are kept for the report. */
static void leave_chain(void)
{
    if (atomic_exchange(&leave_once, 1)) {
        return;
    }
    jpmpi_level_of_t level_of = (jpmpi_level_of_t)(void (*)(void))dlsym(RTLD_DEFAULT, "jpmpi_level_of");
    jpmpi_level_leave_t leave = (jpmpi_level_leave_t)(void (*)(void))dlsym(RTLD_DEFAULT, "jpmpi_level_leave");
    jpmpi_level_defines_t defines = (jpmpi_level_defines_t)(void (*)(void))dlsym(RTLD_DEFAULT, "jpmpi_level_defines");
    const char *spec = getenv("LEAVE_FUNCTIONS");
    if (!level_of || !leave || !defines || !spec) {
        return;
    }
    int how = JPMPI_LEAVE_THESE;
    if (strncmp(spec, "all-but:", 8) == 0) {
        how = JPMPI_LEAVE_ALL_BUT;
        spec += 8;
    }
    char copy[1024];
    const char *names[64];
    int n = 0;
    snprintf(copy, sizeof copy, "%s", spec);
    char *save = NULL;
    for (char *name = strtok_r(copy, ",", &save); name && n < 64; name = strtok_r(NULL, ",", &save)) {
        names[n++] = name;
    }
    int self = level_of((const void *)leave_chain);
    left = leave(self, how, names, n);
    /* from here on only a call that had read the old route before it was switched can still come in:
     * at most one per other thread */
    send_at = atomic_load(&n_send);
    rank_at = atomic_load(&n_comm_rank);
    defines_send = defines(self, "MPI_Send");
}
#endif

static void bump(atomic_long *counter)
{
    atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
}

/* The rank before MPI_Init was seen here: what the launcher put in the environment. */
static int rank_now(void)
{
    if (my_rank >= 0) {
        return my_rank;
    }
    static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", NULL};
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            return atoi(v);
        }
    }
    return -1;
}

static void write_line(const char *line, int n)
{
    if (n <= 0) {
        return;
    }
    fflush(stdout);
    ssize_t done = write(STDOUT_FILENO, line, (size_t)n);
    (void)done;
}

static void report(void)
{
    if (atomic_exchange(&reported, 1)) {
        return;
    }
    char line[512];
    int n = snprintf(line, sizeof line,
                     "count %s rank %d: MPI_Init=%ld MPI_Send=%ld MPI_Recv=%ld MPI_Barrier=%ld "
                     "MPI_Allreduce=%ld MPI_Comm_rank=%ld MPI_Finalize=%ld",
                     TOOL_NAME, rank_now(), atomic_load(&n_init), atomic_load(&n_send), atomic_load(&n_recv),
                     atomic_load(&n_barrier), atomic_load(&n_allreduce), atomic_load(&n_comm_rank),
                     atomic_load(&n_finalize));
#ifdef LEAVE
    n += snprintf(line + n, sizeof line - (size_t)n, " left=%ld send_at=%ld rank_at=%ld defines_send=%ld", left,
                  send_at, rank_at, defines_send);
#endif
    n += snprintf(line + n, sizeof line - (size_t)n, "\n");
    write_line(line, n);
}

__attribute__((destructor)) static void report_at_exit(void)
{
    report();
}

/* libleave.so without LEAVE_AT (or 0): leaves right after PMPI_Init. */
static void after_init(void)
{
#ifdef LEAVE
    const char *at = getenv("LEAVE_AT");
    if (!at || atol(at) == 0) {
        leave_chain();
    }
#endif
}

int MPI_Init(int *argc, char ***argv)
{
    bump(&n_init);
    int rc = PMPI_Init(argc, argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    after_init();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    bump(&n_init);
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    PMPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    after_init();
    return rc;
}

int MPI_Finalize(void)
{
    bump(&n_finalize);
    report();
    return PMPI_Finalize();
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    long mine = atomic_fetch_add_explicit(&n_send, 1, memory_order_relaxed) + 1;
#ifdef LEAVE
    const char *at = getenv("LEAVE_AT");
    if (at && atol(at) > 0 && mine == atol(at)) { /* exactly one call is the n-th */
        leave_chain(); /* inside this wrapper: its PMPI_Send below still goes on to the next level */
    }
#else
    (void)mine;
#endif
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    bump(&n_recv);
    return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
}

int MPI_Barrier(MPI_Comm comm)
{
    bump(&n_barrier);
    return PMPI_Barrier(comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    bump(&n_allreduce);
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    bump(&n_comm_rank);
    return PMPI_Comm_rank(comm, rank);
}

int MPI_Pcontrol(const int level, ...)
{
    char line[128];
    int n = snprintf(line, sizeof line, "pcontrol %s %d rank %d\n", TOOL_NAME, level, rank_now());
    write_line(line, n);
    return PMPI_Pcontrol(level);
}
