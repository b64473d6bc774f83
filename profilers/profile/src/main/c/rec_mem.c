/*
 * rec_mem.c - the profile recorder's own memory: pages mapped for it alone (mmap), never the
 * application's malloc heap. A tool that allocates from the program's heap while the program runs
 * changes where the program's own blocks go: hpcc (N = 4000, 2 ranks) peaked at 136 MiB a rank
 * under the profile instead of 81, because the recorder's small blocks, made mid-run (a
 * communicator's ranks, the matrix, the request table), pinned the top of a heap glibc would
 * otherwise have given back (benchmarks/README.md, "The tenth session").
 */
#define _GNU_SOURCE
#include "recorder_private.h"

#include <sys/mman.h>
#include <unistd.h>

static size_t jp_mem_pages(size_t size)
{
    static size_t page;
    if (!page) {
        long p = sysconf(_SC_PAGESIZE);
        page = p > 0 ? (size_t)p : 4096;
    }
    return (size + page - 1) / page * page;
}

void *jp_mem_alloc(size_t size)
{
    if (size == 0) {
        size = 1;
    }
    void *p = mmap(NULL, jp_mem_pages(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void jp_mem_free(void *p, size_t size)
{
    if (p) {
        munmap(p, jp_mem_pages(size ? size : 1));
    }
}
