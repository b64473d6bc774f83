/*
 * snapshot_layout.c - prints the snapshot header as the compiler lays it out (snapshot.h), one
 * "field offset" line each, for SnapshotLayoutTest, which compares it with what Snapshot.java reads.
 */
#include <stddef.h>
#include <stdio.h>
#include "snapshot.h"

#define FIELD(f) printf("%s %zu\n", #f, offsetof(struct jp_header, f))

int main(void)
{
    printf("version_value %d\n", JP_SNAPSHOT_VERSION);
    printf("sizeof %zu\n", sizeof(struct jp_header));
    FIELD(magic);
    FIELD(version);
    FIELD(header_size);
    FIELD(nfunc);
    FIELD(nbuckets);
    FIELD(world_rank);
    FIELD(world_size);
    FIELD(state);
    FIELD(detail);
    FIELD(pid);
    FIELD(ticks_per_second);
    FIELD(per_call_ns);
    FIELD(init_unix_ns);
    FIELD(app_ticks);
    FIELD(matrix_ranks);
    FIELD(host);
    FIELD(impl);
    FIELD(jobid);
    FIELD(exe);
    FIELD(step);
    FIELD(timer_ticks);
    FIELD(sampled);
    return 0;
}
