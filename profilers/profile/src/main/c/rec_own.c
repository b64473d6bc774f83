/*
 * rec_own.c - the recorder's own MPI calls: agreeing on the output directory at MPI_Init and
 * bringing every rank's figures to rank 0 at MPI_Finalize.
 *
 * They go straight to the MPI library, as the accounting level's do (jpmpi_resolve at the depth
 * below the last level): no level, the recorder's own wrappers included, sees them, so every tool
 * sees exactly the application's calls. They run on a communicator of the recorder's own, a
 * duplicate of the world's processes made at MPI_Init (where the ranks are together anyway), and
 * every wait is a loop of MPI_Test and sched_yield: on busy or oversubscribed cores a rank that
 * waits gives its core to the ranks it waits for (across the test cluster's hosts a blocking
 * MPI_Comm_dup at MPI_Finalize took 0.3 s at 6 ranks and 1.1 s at 24, most of the profile's cost).
 */
#define _GNU_SOURCE
#include "recorder_private.h"

#include <dlfcn.h>
#include <sched.h>

struct jp_own_mpi jp_mpi;
MPI_Comm jp_own_comm = MPI_COMM_NULL;

typedef void (*jp_fn)(void);

/* The library's own function `name` (jpmpi_resolve at the bottom), else the PMPI_ symbol. */
static jp_fn jp_bottom(int depth, jp_fn (*resolve)(int, const char *), const char *name, jp_fn pmpi)
{
    jp_fn f = resolve ? resolve(depth, name) : NULL;
    return f ? f : pmpi;
}

#define JP_OWN(field, name) jp_mpi.field = (__typeof__(jp_mpi.field))jp_bottom(depth, resolve, "MPI_" #name, \
                                                                              (jp_fn)PMPI_##name)

static void jp_own_resolve(void)
{
    int (*count)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "jpmpi_level_count");
    jp_fn (*resolve)(int, const char *) = (jp_fn (*)(int, const char *))dlsym(RTLD_DEFAULT, "jpmpi_resolve");
    int depth = count ? count() : 0;
    JP_OWN(test, Test);
    JP_OWN(comm_idup, Comm_idup);
    JP_OWN(comm_set_errhandler, Comm_set_errhandler);
    JP_OWN(comm_rank, Comm_rank);
    JP_OWN(comm_size, Comm_size);
    JP_OWN(comm_free, Comm_free);
    JP_OWN(ibcast, Ibcast);
    JP_OWN(isend, Isend);
    JP_OWN(iprobe, Iprobe);
    JP_OWN(recv, Recv);
    JP_OWN(get_count, Get_count);
}

int jp_own_wait(int rc, MPI_Request *request)
{
    int done = 0;
    while (rc == MPI_SUCCESS && !done) {
        rc = jp_mpi.test(request, &done, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && !done) {
            sched_yield();
        }
    }
    return rc;
}

int jp_own_start(MPI_Comm all)
{
    jp_own_resolve();
    MPI_Request request;
    if (jp_own_wait(jp_mpi.comm_idup(all, &jp_own_comm, &request), &request) != MPI_SUCCESS) {
        jp_own_comm = MPI_COMM_NULL;
        return -1;
    }
    jp_mpi.comm_set_errhandler(jp_own_comm, MPI_ERRORS_RETURN);
    return 0;
}

int jp_own_bcast(void *buf, int count, MPI_Datatype type)
{
    MPI_Request request;
    if (jp_own_comm == MPI_COMM_NULL) {
        return -1;
    }
    return jp_own_wait(jp_mpi.ibcast(buf, count, type, 0, jp_own_comm, &request), &request) == MPI_SUCCESS ? 0 : -1;
}

int jp_rank0_collects;

void jp_own_agree(void)
{
    int me = -1;
    if (jp_own_comm == MPI_COMM_NULL || jp_mpi.comm_rank(jp_own_comm, &me) != MPI_SUCCESS) {
        return;
    }
    int collects = me == 0 && jp_dump_path[0] != 0;
    if (jp_own_bcast(&collects, 1, MPI_INT) == 0) {
        jp_rank0_collects = collects;
    }
}

void jp_own_end(void)
{
    if (jp_own_comm != MPI_COMM_NULL) {
        jp_mpi.comm_free(&jp_own_comm);
        jp_own_comm = MPI_COMM_NULL;
    }
}
