/*
 * snapshot.h - the header of a rank's snapshot (ranks/rank-R.bin, or the recorder's memory at
 * MPI_Finalize), which the Java side reads (io.jpmpi.profilers.profile.Snapshot): one definition
 * here; SnapshotLayoutTest compares its offsets with the Java side's.
 */
#ifndef JPMPI_SNAPSHOT_H
#define JPMPI_SNAPSHOT_H

#include <stdint.h>

#define JP_SNAPSHOT_MAGIC "JPMPIPR1"
#define JP_SNAPSHOT_VERSION 2

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
    char impl[32];
    char jobid[64];
    char exe[256];
    uint32_t sampled;           /* 0 in a snapshot; on the wire to rank 0, the number of timing records (rec_snapshot.c) */
    char pad[512 - 8 - 4 * 8 - 8 - 16 - 8 - 8 - 8 - 64 - 32 - 64 - 256 - 4];
};
_Static_assert(sizeof(struct jp_header) == 512, "snapshot header is 512 bytes");

#endif
