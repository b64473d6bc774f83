/*
 * rec_mem.c - the profile recorder's own memory: pages mapped for it alone (mmap), never the
 * application's malloc heap. A tool's blocks made while the program runs (a communicator's ranks,
 * the matrix, the request table) would otherwise sit among the program's own, where they change
 * which of the program's freed blocks glibc can give back or reuse; here they are pages of their
 * own, and the recorder calls no malloc at all (`nm -D libjpmpi-profile.so`: no malloc, calloc or
 * free). (hpcc still peaks higher under the profile than plain, 53 MiB a rank against 30-35 at
 * N = 2000, with this and without; with MALLOC_MMAP_THRESHOLD_ fixed both peak alike: glibc's
 * moving threshold for mmap, whose cause there is not found yet: benchmarks/README.md, "The tenth
 * session".)
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
