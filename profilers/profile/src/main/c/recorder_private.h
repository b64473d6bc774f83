/*
 * recorder_private.h - what the files of the profile recorder share and no other level sees (the
 * library is built with -fvisibility=hidden): the job's world and state, the matrix, the world
 * ranks of communicators, the rank dump.
 */
#ifndef JPMPI_RECORDER_PRIVATE_H
#define JPMPI_RECORDER_PRIVATE_H

#include <limits.h>
#include <stdlib.h>
#include <time.h>
#include "recorder.h"

/* recorder.c: the threads' counters, the world, the lifecycle. */
extern struct jp_thread *volatile jp_threads; /* (jp_world_rank, jp_world_size: recorder.h) */
extern MPI_Group jp_world_group; /* the world's processes (MPI_COMM_WORLD's group, or a session's mpi://world) */

/* The detail of a FLUSH written by the periodic dump (0: MPI_Pcontrol(2) or SIGUSR1). */
enum { JP_FLUSH_PERIODIC = 1 };
enum { JP_RUNNING = 0, JP_FINALIZE = 1, JP_ABORT = 2, JP_EXIT = 3, JP_SIGNAL = 4, JP_FLUSH = 5, JP_FATAL = 6 };
extern volatile int jp_ended;           /* a final state was reached: no further dumps */
extern volatile int jp_initialized;
extern uint64_t jp_init_ticks;          /* end of MPI_Init */
extern uint64_t jp_end_ticks;           /* start of MPI_Finalize (0: still running) */
extern int64_t jp_init_unix_ns;
extern uint64_t jp_start_ticks;         /* the recorder's own start inside MPI_Init (snapshot version 3) */
extern struct timespec jp_init_mono;
extern double jp_per_call_ns;
extern char jp_outdir[PATH_MAX];
extern char jp_dump_path[PATH_MAX + 64];
extern char jp_host[64];
extern char jp_exe[256];
extern char jp_jobid[64];
extern char jp_step[8];
extern int jp_sites_on;                 /* unless JPMPI_PROFILE_SITES=off: each thread keeps its call sites */

/* rec_own.c: the recorder's own MPI calls, straight to the library (no level sees them), on a
 * communicator of its own; every wait yields its core (MPI_Test + sched_yield). */
struct jp_own_mpi {
    int (*test)(MPI_Request *, int *, MPI_Status *);
    int (*comm_idup)(MPI_Comm, MPI_Comm *, MPI_Request *);
    int (*comm_set_errhandler)(MPI_Comm, MPI_Errhandler);
    int (*comm_rank)(MPI_Comm, int *);
    int (*comm_size)(MPI_Comm, int *);
    int (*comm_free)(MPI_Comm *);
    int (*ibcast)(void *, int, MPI_Datatype, int, MPI_Comm, MPI_Request *);
    int (*isend)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    int (*iprobe)(int, int, MPI_Comm, int *, MPI_Status *);
    int (*recv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
    int (*get_count)(const MPI_Status *, MPI_Datatype, int *);
};
extern struct jp_own_mpi jp_mpi;
extern MPI_Comm jp_own_comm;            /* the recorder's duplicate of the world's processes, or MPI_COMM_NULL */
/* At MPI_Init (collective over `all`): resolves the functions, duplicates `all`; -1 if that failed. */
int jp_own_start(MPI_Comm all);
/* Waits for `request` if rc is MPI_SUCCESS, yielding the core between tests; the error code. */
int jp_own_wait(int rc, MPI_Request *request);
/* rank 0's `count` items of `buf` to every rank of jp_own_comm (collective); -1 if it failed. */
int jp_own_bcast(void *buf, int count, MPI_Datatype type);
/* At MPI_Init, once the output directory is chosen (collective): whether rank 0 can take every rank's
 * figures at MPI_Finalize (it has an output directory), so that MPI_Finalize needs no collective. */
void jp_own_agree(void);
extern int jp_rank0_collects;
/* At MPI_Finalize, after the last own call: frees the communicator. */
void jp_own_end(void);

/* rec_mem.c: zeroed memory of the recorder's own (whole pages, mmap; never the application's heap), or
 * NULL; given back with the size it was asked with. */
void *jp_mem_alloc(size_t size);
void jp_mem_free(void *p, size_t size);

/* rec_comm.c: jp_world when the thread does not know comm's world ranks (never MPI_COMM_WORLD's): looked up (or
 * made) under the lock, and kept. */
int jp_world_miss(struct jp_thread *t, MPI_Comm comm, int r);

/* The world rank of rank `r` of comm (its remote group for an inter-communicator), or -1 (none, or
 * the rank itself may be either): MPI_COMM_WORLD's and the thread's last communicator's without a call. */
static inline int jp_world(struct jp_thread *t, MPI_Comm comm, int r)
{
    int w;
    if (r < 0) {
        return -1;
    }
    return jp_world_known(t, comm, r, 1, &w) ? w : jp_world_miss(t, comm, r);
}

/* rec_snapshot.c: writes ranks/rank-R.bin (temp file + rename); async-signal-safe apart from the clock reads. */
void jp_dump(int state, int detail);
/* rec_snapshot.c: this rank's call sites (unless JPMPI_PROFILE_SITES=off) at MPI_Finalize. */
void jp_sites_at_finalize(void);
/* rec_periodic.c: waits until no periodic dump (JPMPI_PROFILE_DUMP_EVERY) is being written; after an
 * end state was set, none starts. */
void jp_periodic_quiesce(void);
/* rec_snapshot.c: every rank's figures to rank 0 of jp_own_comm, which writes them all (collective); 1 if it did. */
int jp_gather_dumps(int state);

/* Adds one message to `world` to thread t's matrix row (not to oneself, not outside the world). */
static inline void jp_matrix_add(struct jp_thread *t, int world, int64_t bytes)
{
    if (world < 0 || world >= jp_world_size || world == jp_world_rank) {
        return;
    }
    if (!t->matrix) {
        t->matrix = jp_mem_alloc(2 * (size_t)jp_world_size * sizeof(uint64_t));
        if (!t->matrix) {
            return;
        }
    }
    t->matrix[2 * world]++;
    t->matrix[2 * world + 1] += (uint64_t)bytes;
}

/* A message of the call being recorded (none while recording is off). */
static inline void jp_matrix(struct jp_call *c, int world, int64_t bytes)
{
    if (c->on && !c->nomatrix) {
        jp_matrix_add(c->t, world, bytes);
    }
}

#endif
