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
extern struct jp_thread *volatile jp_threads;
extern int jp_world_rank;
extern int jp_world_size;
extern MPI_Group jp_world_group; /* the world's processes (MPI_COMM_WORLD's group, or a session's mpi://world) */

enum { JP_RUNNING = 0, JP_FINALIZE = 1, JP_ABORT = 2, JP_EXIT = 3, JP_SIGNAL = 4, JP_FLUSH = 5, JP_FATAL = 6 };
extern volatile int jp_ended;           /* a final state was reached: no further dumps */
extern volatile int jp_initialized;
extern uint64_t jp_init_ticks;          /* end of MPI_Init */
extern uint64_t jp_end_ticks;           /* start of MPI_Finalize (0: still running) */
extern int64_t jp_init_unix_ns;
extern struct timespec jp_init_mono;
extern double jp_per_call_ns;
extern char jp_outdir[PATH_MAX];
extern char jp_dump_path[PATH_MAX + 64];
extern char jp_host[64];
extern char jp_exe[256];
extern char jp_jobid[64];

/* rec_comm.c: the world rank of rank `r` of comm (its remote group for an inter-communicator), or -1. */
int jp_world(MPI_Comm comm, int r);

/* rec_snapshot.c: writes ranks/rank-R.bin (temp file + rename); async-signal-safe apart from the clock reads. */
void jp_dump(int state, int detail);
/* rec_snapshot.c: this rank's call sites (JPMPI_PROFILE_SITES=on) at MPI_Finalize. */
void jp_sites_at_finalize(void);
/* rec_snapshot.c: every rank's figures to rank 0 of `all`, which writes them all (collective); 1 if it did. */
int jp_gather_dumps(MPI_Comm all, int state);

/* Adds one message to `world` to thread t's matrix row (not to oneself, not outside the world). */
static inline void jp_matrix_add(struct jp_thread *t, int world, int64_t bytes)
{
    if (world < 0 || world >= jp_world_size || world == jp_world_rank) {
        return;
    }
    if (!t->matrix) {
        t->matrix = calloc(2 * (size_t)jp_world_size, sizeof(uint64_t));
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
