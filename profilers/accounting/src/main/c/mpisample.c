/*
 * mpisample.c - which MPI function a thread is in, by sampling its stack (mpisample.h).
 */
#define _GNU_SOURCE
#include "mpisample.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>

typedef int (*mps_count_fn)(void);
typedef const char *(*mps_name_fn)(int);
typedef void (*mps_function_t)(void);
typedef mps_function_t (*mps_resolve_fn)(int, const char *);

/* Room: functions (Open MPI 4.1 has 405 in the dispatcher, MPICH 4.0 more), their entry points,
 * the readable segments of the loaded objects, and the frames one walk looks at. */
#define MPS_MAX_FUNCS 2048
#define MPS_MAX_ENTRIES 16384
#define MPS_MAX_SEGMENTS 8192
#define MPS_MAX_DEPTH 512

struct mps_entry {
    uintptr_t addr;
    int fn;
};

struct mps_segment {
    uintptr_t start, end;
};

static struct mps_entry mps_entries[MPS_MAX_ENTRIES];
static int mps_nentries;
static struct mps_segment mps_segments[MPS_MAX_SEGMENTS];
static int mps_nsegments;
static int mps_nfuncs;

/* Written by the handler only, on the sampled thread; read after mps_stop on that thread. */
static uint64_t mps_counts[MPS_MAX_FUNCS];
static uint64_t mps_total, mps_mpi;

static uint64_t mps_period;
static volatile sig_atomic_t mps_on;
static int mps_running;
static pthread_t mps_thread, mps_target;
static int mps_stat_fd = -1;
static pid_t mps_tid;
/* Between the sampler thread and the handler. */
static uint64_t mps_owed, mps_asleep;
static struct sigaction mps_old;
static int mps_marker; /* its address tells the timer's signals from any other SIGPROF */

/* ---------------------------------------------------------------- tables, made at the start */

static int mps_by_addr(const void *a, const void *b)
{
    const struct mps_entry *x = a, *y = b;
    if (x->addr != y->addr) {
        return x->addr < y->addr ? -1 : 1;
    }
    return x->fn - y->fn;
}

static int mps_by_start(const void *a, const void *b)
{
    const struct mps_segment *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static void mps_add(mps_function_t f, int fn)
{
    if (f && mps_nentries < MPS_MAX_ENTRIES) {
        mps_entries[mps_nentries].addr = (uintptr_t)f;
        mps_entries[mps_nentries].fn = fn;
        mps_nentries++;
    }
}

static int mps_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    for (int i = 0; i < info->dlpi_phnum && mps_nsegments < MPS_MAX_SEGMENTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && ph->p_memsz > 0) {
            mps_segments[mps_nsegments].start = info->dlpi_addr + ph->p_vaddr;
            mps_segments[mps_nsegments].end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
            mps_nsegments++;
        }
    }
    return 0;
}

/* Every MPI entry point a call can go to: the dispatcher's MPI_X and PMPI_X, each level's and the
 * MPI library's (jpmpi_resolve at every depth). 0, or -1 without a dispatcher. */
static int mps_tables(char *why, size_t whylen)
{
    mps_count_fn count = (mps_count_fn)dlsym(RTLD_DEFAULT, "jpmpi_function_count");
    mps_name_fn name = (mps_name_fn)dlsym(RTLD_DEFAULT, "jpmpi_function_name");
    mps_resolve_fn resolve = (mps_resolve_fn)dlsym(RTLD_DEFAULT, "jpmpi_resolve");
    mps_count_fn levels = (mps_count_fn)dlsym(RTLD_DEFAULT, "jpmpi_level_count");
    int n = count ? count() : 0;
    if (!name || !resolve || !levels || n <= 0) {
        snprintf(why, whylen, "the dispatcher (libmpiprofilesupport.so) does not list its functions"
                 " (jpmpi_function_count: not preloaded, or an older build)");
        return -1;
    }
    mps_nfuncs = n < MPS_MAX_FUNCS ? n : MPS_MAX_FUNCS;
    mps_nentries = 0;
    int depth = levels();
    for (int f = 0; f < mps_nfuncs; f++) {
        const char *fname = name(f);
        if (!fname) {
            continue;
        }
        char pname[128];
        snprintf(pname, sizeof pname, "P%s", fname);
        mps_add((mps_function_t)dlsym(RTLD_DEFAULT, fname), f);
        mps_add((mps_function_t)dlsym(RTLD_DEFAULT, pname), f);
        for (int d = 0; d <= depth; d++) {
            mps_add(resolve(d, fname), f);
        }
    }
    qsort(mps_entries, (size_t)mps_nentries, sizeof mps_entries[0], mps_by_addr);
    int kept = 0;
    for (int i = 0; i < mps_nentries; i++) {
        if (kept == 0 || mps_entries[i].addr != mps_entries[kept - 1].addr) {
            mps_entries[kept++] = mps_entries[i];
        }
    }
    mps_nentries = kept;
    mps_nsegments = 0;
    dl_iterate_phdr(mps_segment, NULL);
    qsort(mps_segments, (size_t)mps_nsegments, sizeof mps_segments[0], mps_by_start);
    return 0;
}

/* ---------------------------------------------------------------- in the handler: no locks, no allocation */

/* 1 if [a, a + len) is inside one readable segment of an object loaded at the start. */
static int mps_readable(uintptr_t a, size_t len)
{
    int lo = 0, hi = mps_nsegments - 1, at = -1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (mps_segments[mid].start <= a) {
            at = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    /* Segments of different objects never overlap; within one, the last starting at or below a. */
    return at >= 0 && a + len >= a && a + len <= mps_segments[at].end;
}

static int mps_lookup(uintptr_t a)
{
    int lo = 0, hi = mps_nentries - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (mps_entries[mid].addr == a) {
            return mps_entries[mid].fn;
        }
        if (mps_entries[mid].addr < a) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

static uintptr_t mps_word(uintptr_t a)
{
    uintptr_t v;
    memcpy(&v, (const void *)a, sizeof v);
    return v;
}

static int32_t mps_int32(uintptr_t a)
{
    int32_t v;
    memcpy(&v, (const void *)a, sizeof v);
    return v;
}

#if defined(__x86_64__)
/*
 * The MPI function the call before return address `ra` went to, or -1. The call is `call rel32`
 * (e8, to a function or to its PLT entry) or `call *disp32(%rip)` (ff 15, through a GOT slot:
 * -fno-plt); a PLT entry is `jmp *disp32(%rip)`, maybe after endbr64 and a bnd prefix.
 */
static int mps_called(uintptr_t ra)
{
    if (!mps_readable(ra - 6, 6)) {
        return -1;
    }
    const unsigned char *c = (const unsigned char *)ra;
    uintptr_t target;
    if (c[-6] == 0xff && c[-5] == 0x15) {
        uintptr_t slot = ra + (uintptr_t)(intptr_t)mps_int32(ra - 4);
        if (!mps_readable(slot, sizeof slot)) {
            return -1;
        }
        target = mps_word(slot);
    } else if (c[-5] == 0xe8) {
        target = ra + (uintptr_t)(intptr_t)mps_int32(ra - 4);
    } else {
        return -1; /* an indirect call through a register or memory: not decoded */
    }
    int f = mps_lookup(target);
    if (f >= 0 || !mps_readable(target, 16)) {
        return f;
    }
    const unsigned char *p = (const unsigned char *)target;
    size_t o = 0;
    if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) {
        o = 4; /* endbr64 */
    }
    if (p[o] == 0xf2) {
        o++; /* bnd */
    }
    if (p[o] != 0xff || p[o + 1] != 0x25) {
        return -1;
    }
    uintptr_t slot = target + o + 6 + (uintptr_t)(intptr_t)mps_int32(target + o + 2);
    return mps_readable(slot, sizeof slot) ? mps_lookup(mps_word(slot)) : -1;
}
#define MPS_DECODES 1
#else
static int mps_called(uintptr_t ra)
{
    (void)ra;
    return -1;
}
#define MPS_DECODES 0
#endif

struct mps_walk {
    int depth;
    int fn; /* the outermost MPI call so far */
};

static _Unwind_Reason_Code mps_frame(struct _Unwind_Context *ctx, void *arg)
{
    struct mps_walk *w = arg;
    if (++w->depth > MPS_MAX_DEPTH) {
        return _URC_END_OF_STACK;
    }
    int exact = 0; /* 1: the interrupted instruction itself, not a return address */
    uintptr_t ip = _Unwind_GetIPInfo(ctx, &exact);
    if (ip && !exact) {
        int f = mps_called(ip);
        if (f >= 0) {
            w->fn = f;
        }
    }
    return _URC_NO_REASON;
}

int mps_classify(void)
{
    struct mps_walk w = {0, -1};
    _Unwind_Backtrace(mps_frame, &w);
    return w.fn;
}

static void mps_handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    if (si->si_code != SI_QUEUE || si->si_value.sival_ptr != &mps_marker) {
        return; /* somebody else's SIGPROF */
    }
    /* The samples sent since the last one delivered: a signal sent while one was pending (the thread
     * had no core) merged with it, and the thread was where it is now all that time. */
    uint64_t weight = __atomic_exchange_n(&mps_owed, 0, __ATOMIC_ACQ_REL);
    if (!mps_on || weight == 0) {
        return;
    }
    int saved = errno;
    int fn = mps_classify();
    mps_total += weight;
    if (fn >= 0) {
        mps_mpi += weight;
        mps_counts[fn] += weight;
    }
    errno = saved;
}

/* ---------------------------------------------------------------- the sampler thread */

/* The sampled thread's scheduler state ('R' running or waiting for a core, 'S' asleep, ...), or 0. */
static char mps_state(void)
{
    char buf[512];
    ssize_t n = pread(mps_stat_fd, buf, sizeof buf - 1, 0);
    if (n <= 0) {
        return 0;
    }
    buf[n] = 0;
    const char *close = strrchr(buf, ')'); /* the command name may hold anything */
    return close && close[1] == ' ' ? close[2] : 0;
}

/*
 * Every period of wall time (CLOCK_MONOTONIC, absolute deadlines, so no drift and no step with
 * the kernel's tick): a thread that runs or waits for a core gets SIGPROF, whose handler looks at
 * its stack; a thread asleep (blocked in a system call: I/O, sleep, a blocking wait) is not
 * interrupted, so that no sleep or poll of the program returns early, and the sample counts as
 * application time.
 */
static void *mps_sampler(void *arg)
{
    (void)arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    union sigval value;
    value.sival_ptr = &mps_marker;
    for (;;) {
        next.tv_nsec += (long)mps_period;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {
        }
        char state = mps_state();
        if (state == 'R') {
            __atomic_add_fetch(&mps_owed, 1, __ATOMIC_ACQ_REL);
            pthread_sigqueue(mps_target, SIGPROF, value);
        } else if (state) {
            __atomic_add_fetch(&mps_asleep, 1, __ATOMIC_RELAXED);
        } else {
            return NULL; /* the thread is gone */
        }
    }
}

/* ---------------------------------------------------------------- start, stop, counts */

int mps_prepare(char *why, size_t whylen)
{
    if (!MPS_DECODES) {
        snprintf(why, whylen, "sampling decodes x86-64 calls only");
        return -1;
    }
    if (mps_tables(why, whylen) != 0) {
        return -1;
    }
    /* A first walk out of the handler: loads and binds the unwinder before any signal needs it. */
    (void)mps_classify();
    return 0;
}

int mps_start(int hz, char *why, size_t whylen)
{
    if (hz <= 0 || hz > MPS_MAX_HZ) {
        snprintf(why, whylen, "the sampling rate %d is not within 1..%d per second", hz, MPS_MAX_HZ);
        return -1;
    }
    if (mps_prepare(why, whylen) != 0) {
        return -1;
    }
    if (sigaction(SIGPROF, NULL, &mps_old) != 0) {
        snprintf(why, whylen, "cannot read SIGPROF's handler: %s", strerror(errno));
        return -1;
    }
    if ((mps_old.sa_flags & SA_SIGINFO) || mps_old.sa_handler != SIG_DFL) {
        snprintf(why, whylen, "SIGPROF is taken (the program or another profiler set a handler)");
        return -1;
    }
    mps_tid = gettid();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)mps_tid);
    mps_stat_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (mps_stat_fd < 0) {
        snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    memset(mps_counts, 0, sizeof mps_counts);
    mps_total = mps_mpi = mps_owed = mps_asleep = 0;
    mps_period = 1000000000u / (unsigned)hz;
    mps_target = pthread_self();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = mps_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL) != 0) {
        snprintf(why, whylen, "cannot set SIGPROF's handler: %s", strerror(errno));
        close(mps_stat_fd);
        return -1;
    }
    mps_on = 1;
    /* The sampler takes no signal: it starts with all blocked. */
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &before);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    int rc = pthread_create(&mps_thread, &attr, mps_sampler, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (rc != 0) {
        snprintf(why, whylen, "cannot start the sampler thread: %s", strerror(rc));
        mps_on = 0;
        sigaction(SIGPROF, &mps_old, NULL);
        close(mps_stat_fd);
        return -1;
    }
    mps_running = 1;
    return 0;
}

void mps_stop(void)
{
    if (!mps_running) {
        return;
    }
    mps_running = 0;
    pthread_cancel(mps_thread); /* it waits in clock_nanosleep, a cancellation point */
    pthread_join(mps_thread, NULL);
    mps_on = 0;
    close(mps_stat_fd);
    if (gettid() != mps_tid) {
        return; /* a signal still on its way to the sampled thread finds the handler, which ignores it */
    }
    /* Drop what is still pending, then give SIGPROF back (its default would end the process). */
    sigset_t prof, before;
    sigemptyset(&prof);
    sigaddset(&prof, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &prof, &before);
    struct timespec none = {0, 0};
    while (sigtimedwait(&prof, NULL, &none) == SIGPROF) {
    }
    struct sigaction now;
    if (sigaction(SIGPROF, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == mps_handler) {
        sigaction(SIGPROF, &mps_old, NULL); /* unless the program has set its own since */
    }
    pthread_sigmask(SIG_SETMASK, &before, NULL);
}

uint64_t mps_samples(void)
{
    return mps_total + mps_asleep;
}

uint64_t mps_in_mpi(void)
{
    return mps_mpi;
}

uint64_t mps_function_samples(int f)
{
    return f >= 0 && f < mps_nfuncs ? mps_counts[f] : 0;
}

uint64_t mps_period_ns(void)
{
    return mps_period;
}
