/*
 * snapshot.h - the header of a rank's snapshot (ranks/rank-R.bin, or the recorder's memory at
 * MPI_Finalize), which the Java side reads (io.jpmpi.profilers.profile.Snapshot): one definition
 * here; SnapshotLayoutTest compares its offsets with the Java side's.
 */
#ifndef JPMPI_SNAPSHOT_H
#define JPMPI_SNAPSHOT_H

#include <stdint.h>

#define JP_SNAPSHOT_MAGIC "JPMPIPR1"
#define JP_SNAPSHOT_VERSION 3

struct jp_header {
    char magic[8];              /* "JPMPIPR1" */
    uint32_t version, header_size;
    uint32_t nfunc, nbuckets;
    int32_t world_rank, world_size;
    int32_t state, detail;      /* JP_* state; errorcode (abort) or signal number */
    uint64_t pid;
    double ticks_per_second;
    double per_call_ns;
    int64_t init_unix_ns;       /* wall clock when MPI_Init returned (0: never) */
    uint64_t app_ticks;         /* end of MPI_Init .. start of MPI_Finalize, or .. now */
    uint64_t matrix_ranks;
    char host[64];
    char impl[24];              /* "openmpi 4.1.4" (version 1: impl[32], no step) */
    char step[8];               /* Slurm's SLURM_STEP_ID ("0", "batch"); "" if none or longer than 7 */
    char jobid[56];             /* (version 1: jobid[64]) */
    uint64_t timer_ticks;       /* the shortest interval two reads of the clock show, in ticks (0: not measured) */
    char exe[256];
    uint32_t sampled;           /* 0 in a snapshot; on the wire to rank 0, the number of timing records (rec_snapshot.c) */
    char pad[4];
};
_Static_assert(sizeof(struct jp_header) == 512, "snapshot header is 512 bytes");

/*
 * Version 3: after the matrix, the recorder's own cost at the ends of the run and, for each function
 * called (in function order), the detail of its figures (Snapshot.java, "detail").
 */
struct jp_v3 {
    uint64_t start_ticks;       /* the recorder's own start inside MPI_Init (after the library's): output
                                 * directory, calibration, handlers, its communicator */
    uint64_t finalize_ticks;    /* from the start of MPI_Finalize to this snapshot (0: not at MPI_Finalize) */
    uint32_t ndetail;           /* detail records that follow */
    uint32_t ncbuckets;         /* communicator-size buckets per record (JP_CBUCKETS) */
    uint64_t reserved;
};
_Static_assert(sizeof(struct jp_v3) == 32, "the version 3 part's head is 32 bytes");
/* a detail record: u32 function index, u32 0, u64 buffer bytes (collectives), u64 ticks per size bucket
 * (nbuckets), u64 calls per communicator-size bucket (ncbuckets), u64 ticks per communicator-size bucket */
#define JP_DETAIL_BYTES(nbuckets, ncbuckets) (16 + 8 * (size_t)(nbuckets) + 16 * (size_t)(ncbuckets))

#endif
