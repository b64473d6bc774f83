/*
 * hwc.h - the C half of jpmpi's `hwc` tool: what the generated wrappers (jpmpi_hwc.c, one per MPI
 * function, from specs/mpi-functions.json by AroundEmitter) call around each PMPI call.
 *
 * Each thread that calls MPI opens its own perf events (one group, user-space counts only). The
 * outermost MPI call of a thread reads every counter on entry and on exit and adds the difference
 * to the thread's in-MPI sums and to the function's; calls made inside it (depth > 0) read nothing,
 * so nothing is counted twice. Everything is per thread: no atomics, no locks on the hot path.
 *
 * Sampled mode (JPMPI_HWC_MODE, hwc.c): a thread's first MPI call opens its counters running free,
 * the leading event overflowing every N events with a signal to that thread; the handler splits
 * the counts since the last overflow by where the thread is (mpisample.h's stack classifier).
 * Every later call costs the wrapper's two branches only, and none at all where only the thread
 * that initialised MPI may call it: there the level leaves the dispatcher's chain after MPI_Init
 * (hwc.c, hwc_leave_chain).
 */
#ifndef JPMPI_HWC_H
#define JPMPI_HWC_H

#include <cpuid.h>
#include <mpi.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "jpmpi_hwc_ids.h"

#define HWC_EXPORT __attribute__((visibility("default")))
#define HWC_MAX 8

/* How a thread reads its counters (chosen once per process, see hwc_choose_method). */
enum hwc_method { HWC_RDPMC = 0, HWC_READ = 1 };

/* One function's in-MPI figures in one thread (sampled: samples instead of calls). */
struct hwc_fstat {
    uint64_t calls, ticks, ev[HWC_MAX], samples;
};

struct hwc_thread {
    struct hwc_thread *next;
    int depth;                  /* MPI calls in flight in this thread (only the outermost counts) */
    int n;                      /* events open and counting (0: nothing is read) */
    int leader;                 /* the group's fd: one read(2) gives every counter */
    uint64_t entry[HWC_MAX];    /* counters at the entry of the outermost call in flight */
    uint64_t entry_ticks;
    uint64_t in[HWC_MAX];       /* sums inside MPI */
    uint64_t in_ticks;
    uint64_t base[HWC_MAX];     /* counters when the thread started counting */
    uint64_t base_ticks;
    uint64_t fin[HWC_MAX], fin_in[HWC_MAX], fin_ticks, fin_in_ticks; /* frozen at MPI_Finalize */
    int frozen;
    int sampled;                /* sampled mode: the counters run free, the overflow handler splits them */
    uint64_t last[HWC_MAX];     /* sampled: the counters at the last sample */
    uint64_t last_ticks;
    uint64_t samples, in_samples;
    int fd[HWC_MAX];
    struct perf_event_mmap_page *page[HWC_MAX];
    struct hwc_fstat f[HWC_NFUNC];
};

typedef struct hwc_thread *hwc_frame;

extern __thread struct hwc_thread *hwc_self __attribute__((tls_model("initial-exec")));
extern int hwc_method;
struct hwc_thread *hwc_thread_new(void);

/*
 * Opens one counting event of the calling thread, user space only, in `group` (-1: as a group
 * leader), read as a group (PERF_FORMAT_GROUP); `disabled` leaves a leader off until enabled.
 * Returns the fd, or -1 with errno.
 */
static inline int hwc_perf_open(uint32_t type, uint64_t config, int group, int disabled)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    a.exclude_kernel = 1; /* the application's and the library's own work, not the kernel's */
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_GROUP;
    a.disabled = disabled && group < 0;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

/* The CPU family of an AMD processor (0x17: Zen 1 and 2, 0x19: Zen 3 and 4, 0x1a: Zen 5), 0 on other vendors. */
static inline int hwc_amd_family(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d) || b != 0x68747541u) { /* "Auth"enticAMD */
        return 0;
    }
    __get_cpuid(1, &a, &b, &c, &d);
    unsigned family = (a >> 8) & 0xf;
    return (int)(family == 0xf ? family + ((a >> 20) & 0xff) : family);
}

static inline __attribute__((always_inline)) uint64_t hwc_ticks(void)
{
    return __builtin_ia32_rdtsc();
}

/* The PMC instruction: the raw value of hardware counter `counter`. */
static inline __attribute__((always_inline)) uint64_t hwc_pmc(uint32_t counter)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
    return (uint64_t)hi << 32 | lo;
}

/*
 * What hwc_rdpmc executes for the PMC. An includer may name another function before including
 * this file: benchmarks/hwc/readcost.c puts rdtsc there to time this hot path on a machine whose
 * hypervisor traps rdpmc.
 */
#ifndef HWC_PMC
#define HWC_PMC(counter) hwc_pmc(counter)
#endif

/* One counter through the perf mmap page: the kernel's offset plus the live PMC, under its seqlock. */
static inline __attribute__((always_inline)) uint64_t hwc_rdpmc(const volatile struct perf_event_mmap_page *p)
{
    uint32_t seq;
    uint64_t v;
    do {
        seq = p->lock;
        __asm__ __volatile__("" ::: "memory");
        uint32_t idx = p->index;
        v = (uint64_t)p->offset;
        if (idx) {
            unsigned shift = 64u - p->pmc_width;
            v += (uint64_t)((int64_t)(HWC_PMC(idx - 1) << shift) >> shift);
        }
        __asm__ __volatile__("" ::: "memory");
    } while (p->lock != seq);
    return v;
}

/* Every counter of thread t into out[0..n). */
static inline __attribute__((always_inline)) void hwc_read(struct hwc_thread *t, uint64_t *out)
{
    int n = t->n;
    if (hwc_method == HWC_RDPMC) {
        for (int i = 0; i < n; i++) {
            out[i] = hwc_rdpmc(t->page[i]);
        }
    } else {
        uint64_t buf[1 + HWC_MAX];
        if (read(t->leader, buf, sizeof(uint64_t) * (size_t)(1 + n)) > 0) {
            for (int i = 0; i < n; i++) {
                out[i] = buf[1 + i];
            }
        } else {
            for (int i = 0; i < n; i++) {
                out[i] = t->entry[i];
            }
        }
    }
}

static inline __attribute__((always_inline)) hwc_frame hwc_enter(void)
{
    struct hwc_thread *t = hwc_self;
    if (__builtin_expect(!t, 0)) {
        t = hwc_thread_new();
        if (!t) {
            return 0;
        }
    }
    if (t->sampled) {
        return 0; /* sampled mode: nothing per call (the thread's first call registered it) */
    }
    if (t->depth++ == 0 && t->n) {
        hwc_read(t, t->entry);
        t->entry_ticks = hwc_ticks();
    }
    return t;
}

static inline __attribute__((always_inline)) void hwc_exit(hwc_frame t, int id)
{
    if (!t || --t->depth != 0 || !t->n) {
        return;
    }
    uint64_t ticks = hwc_ticks();
    uint64_t now[HWC_MAX];
    hwc_read(t, now);
    struct hwc_fstat *s = &t->f[id];
    uint64_t d = ticks - t->entry_ticks;
    t->in_ticks += d;
    s->ticks += d;
    s->calls++;
    for (int i = 0; i < t->n; i++) {
        uint64_t e = now[i] - t->entry[i];
        t->in[i] += e;
        s->ev[i] += e;
    }
}

#endif
