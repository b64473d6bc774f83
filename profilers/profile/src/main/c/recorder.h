/*
 * recorder.h - the C half of jpmpi's `profile` tool: what the generated wrappers
 * (jpmpi_profile.c, one per MPI function, from specs/mpi-functions.json) call.
 *
 * Every wrapper does: jp_begin (thread block, entry timestamp), the PMPI call, jp_stop (exit
 * timestamp), its semantics (bytes, matrix, request tracking: the jp_* helpers below), jp_end
 * (adds the call to this thread's counters). Counters are per thread and never shared, so the
 * hot path has no atomics and no locks; the Java level (or a dump) adds the threads up.
 */
#ifndef JPMPI_RECORDER_H
#define JPMPI_RECORDER_H

#include <mpi.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include "jpmpi_profile_ids.h"

#define JP_EXPORT __attribute__((visibility("default")))
/* The wrapper of a function with a quick or lean path (generated), which an untimed call runs: its start
 * on a cache line of its own, so that where the rest of the library puts it never adds a line to the
 * call's path (an MPI_Comm_rank wrapper of ~100 bytes started 48 bytes into a line took three lines
 * instead of two after an unrelated file joined the library: +0.3 ns a call; benchmarks/README.md, "The
 * eighteenth session"). */
#define JP_HOT JP_EXPORT __attribute__((aligned(64)))
/* The full wrapper a timed call of such a function takes from it (jp_timed_X, generated): out of the
 * quick path's line (noinline), and starting a line of its own too. */
#define JP_TIMED static __attribute__((noinline, aligned(64)))
#define JP_BUCKETS 48
/* log2 buckets of a collective's communicator size: bucket k holds sizes 2^k .. 2^(k+1) - 1, the last
 * everything larger (world sizes go up to 2^20) */
#define JP_CBUCKETS 21

/*
 * One function's figures in one thread (ticks: see jp_ticks). Calls, bytes and size buckets are
 * exact; the time is exact while every call is timed, and an estimate once the function's calls on
 * this thread are too short to time honestly (PROFILE.md, "Sampled timing"): then 1 call in about
 * `n` is timed, at a random stride, and each timed call counts `n` times in `ticks`.
 */
struct jp_fstat {
    /* (first cache line: all an untimed call reads and writes) */
    uint64_t calls, sent, recv;
    uintptr_t ra1;              /* the call site the full path counted last, + 1 (0: none yet) */
    struct jp_site *site;       /* ... and its entry (NULL without sites) */
    /* `calls` and `sent` + `recv` when the full path last counted a call (jp_end): what they grew by since
     * is what the lean path (jp_lean) counted from that site, not yet in its entry (jp_end moves it there;
     * the sites' file adds the rest). Marks, not counts of their own, so that a lean call adds to nothing
     * but its function's figures. */
    uint64_t mcalls;
    uint16_t skip;              /* calls still to pass untimed before the next timed one */
    uint16_t n;                 /* 1 in n calls timed; 0 or 1: every call */
    uint64_t mbytes;
    /* (second line: what a timed call adds) */
    uint64_t ticks __attribute__((aligned(64)));
    uint64_t timed;             /* calls timed (min and max are theirs) */
    uint64_t min, max;
    uint32_t wticks;            /* ticks of the calls timed since the last look (jp_adapt), each at most 2^24 */
} __attribute__((aligned(64)));

/*
 * Call sites (issue 21): one function's calls from one return address of the application on one
 * thread. The dispatcher's entries write the application's return address into a per-thread word
 * (jpmpi_caller_word, jpmpi.h) before the first level runs; a wrapper reads it in jp_begin and adds
 * the call into an open-addressing table keyed by (address, function) in jp_end. Addresses are
 * resolved (module + offset, then file:line) only when the figures are written.
 */
#define JP_SITES 4096           /* entries per thread (a power of 2); one more for the rest */
struct jp_site {
    uintptr_t ra;               /* the call's return address (0: unknown) */
    uint32_t fid1;              /* the function's id + 1 (0: a free entry) */
    uint32_t pad;
    uint64_t calls, ticks, bytes;
};

/* Arguments a lean call keeps for the fatal-error watch (jp_keep): functions with more take the framed path. */
#define JP_KEEP_MAX 12

struct jp_thread {
    /* (first cache line, with the function's own: all a lean call of up to 6 arguments touches in the
     * block, jp_lean) */
    void *const *caller;        /* the dispatcher's caller word of this thread (or a NULL word: no sites) */
    /* The lean path's call in flight (jp_keep): its function's id + 1, and its arguments; 0 while the
     * thread's last wrapped call took another path (jp_begin clears it). */
    uint32_t recall;
    uint64_t args[JP_KEEP_MAX];
    struct jp_thread *next;
    struct jp_site *sites;      /* JP_SITES + 1 entries (the last: calls from sites that found the table
                                 * full); NULL with JPMPI_PROFILE_SITES=off, so no call pays for them */
    /* The last handle a one-handle completion call looked up in the request table, and the table's
     * generation then, with JP_FOLLOWED set when the recorder follows it (jp_unfollowed) */
    uintptr_t nf_req;
    uint64_t nf_gen;
    uint64_t *matrix;           /* 2 x world size: messages, bytes; allocated on first use */
    uint64_t rng;               /* the sampling strides' xorshift state */
    struct { uintptr_t key; int64_t size; uint64_t epoch; } tcache[8];
    /* the communicator or window whose world ranks this thread looked up last (rec_comm.c, jp_world),
     * so that a message on a communicator other than MPI_COMM_WORLD takes no lock: its handle, its
     * kind, its group's world ranks and their count, and the ranks' generation then */
    struct { uintptr_t key; int kind; int n; const int *world; uint64_t gen; } wcache;
    MPI_Request *rbuf;          /* the copy of a completion call's handles past JP_REQS_MAX_STACK (rec_requests.c) */
    size_t rcap;
    int rbusy;
    struct jp_fstat f[JP_NFUNC]; /* two cache lines each, an untimed call touching the first */
    uint64_t hist[JP_NFUNC][JP_BUCKETS];
    unsigned __int128 var[JP_NFUNC]; /* variance of f[i].ticks as an estimate (ticks^2): sum of (n^2 - n) d^2 */
    /* (snapshot version 3) the time of the calls timed per size bucket, each weighted as in f[i].ticks;
     * collectives: the per-call buffer bytes (mpiP's message size) and calls and time by communicator
     * size (rec_colls.c). Only pages a function touches are ever touched (the block is calloc'ed). */
    uint64_t hticks[JP_NFUNC][JP_BUCKETS];
    uint64_t cbuf[JP_NFUNC];
    uint64_t ccalls[JP_NFUNC][JP_CBUCKETS];
    uint64_t cticks[JP_NFUNC][JP_CBUCKETS];
};
_Static_assert(sizeof(struct jp_fstat) == 128 && offsetof(struct jp_fstat, ticks) == 64,
               "an untimed call's figures are in one cache line");
_Static_assert(offsetof(struct jp_thread, args) + 6 * sizeof(uint64_t) <= 64,
               "a lean call's thread words are in one cache line (the block is page-aligned, jp_mem_alloc)");

/* One call in flight. */
struct jp_call {
    struct jp_thread *t;
    uintptr_t ra;               /* the application's call site */
    uint64_t t0, t1;            /* t0 == 0: not timed */
    int64_t sent, recv;
    int on;                     /* recording (counted): 0 while MPI_Pcontrol(0) holds */
    int nomatrix;               /* persistent collective set-up: bytes only, kept for each start */
    int id;                     /* the function's id (the collectives' helpers file their figures under it) */
};

extern __thread struct jp_thread *jp_self __attribute__((tls_model("initial-exec")));
extern volatile int jp_on;
extern int jp_world_rank;
extern int jp_world_size;
/* the world ranks' generation (rec_comm.c): a thread's copy of a communicator's (jp_thread.wcache) is
 * good while this is what it was then */
extern uint64_t jp_maps_gen;
struct jp_thread *jp_thread_new(void);

static inline __attribute__((always_inline)) uint64_t jp_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/*
 * The hot path's rare calls (a function's stride, a timed call of a sampled function, a site's first
 * call) clobber no register on x86-64: a wrapper then keeps its return code and its arguments in
 * caller-saved registers across them, and saves fewer registers on every call (the untimed calls of
 * a sampled function above all). They use general registers only.
 */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(no_caller_saved_registers)
#define JP_RARE __attribute__((no_caller_saved_registers, target("general-regs-only"), noinline, cold))
#endif
#endif
#ifndef JP_RARE
#define JP_RARE __attribute__((noinline, cold))
#endif

/* Timed calls between two looks at a function's mean call (jp_adapt; a power of 2). */
#define JP_WINDOW 64
/* Every JP_WINDOW timed calls: the stride for the next window, from their mean (recorder.c). */
JP_RARE void jp_adapt(struct jp_thread *t, struct jp_fstat *s);
/* A timed call of a sampled function: its weight, its variance, the next stride (recorder.c). */
JP_RARE uint64_t jp_sampled(struct jp_thread *t, struct jp_fstat *s, uint64_t d);
/* The site entry of (ra, id) when it is not where it hashes to: found, made, or the rest's (recorder.c). */
JP_RARE struct jp_site *jp_site_miss(struct jp_thread *t, uintptr_t ra, int id);

/* (a macro: jp_site_miss, compiled for general registers only, inlines it too) */
#define jp_site_hash(ra, id) \
    ((unsigned)(((uintptr_t)(ra) >> 2) ^ ((uintptr_t)(ra) >> 13) ^ ((unsigned)(id) * 0x9e37u)) & (JP_SITES - 1))

static inline __attribute__((always_inline)) struct jp_site *jp_site(struct jp_thread *t, uintptr_t ra, int id)
{
    struct jp_site *e = &t->sites[jp_site_hash(ra, id)];
    if (__builtin_expect(e->ra != ra || e->fid1 != (uint32_t)id + 1, 0)) {
        e = jp_site_miss(t, ra, id);
    }
    return e;
}

static inline __attribute__((always_inline)) void jp_begin(struct jp_call *c, int id)
{
    struct jp_thread *t = jp_self;
    if (__builtin_expect(!t, 0)) {
        t = jp_thread_new();
    }
    c->t = t;
    c->ra = (uintptr_t)*t->caller;
    t->recall = 0;
    c->t0 = 0;
    c->on = jp_on;
    c->sent = 0;
    c->recv = 0;
    c->nomatrix = 0;
    c->id = id;
    if (c->on) {
        struct jp_fstat *s = &t->f[id];
        if (__builtin_expect(s->skip == 0, 1)) {
            c->t0 = jp_ticks();
        } else {
            s->skip--;
        }
    }
}

/*
 * The quick path: an untimed call of a sampled function (PROFILE.md, "Sampled timing") whose figures
 * all follow from its arguments is counted before the library is called, so that the wrapper keeps
 * nothing but its arguments across the call (for the fatal-error watch's second call). 1 when this
 * call was counted so (c is then set up as jp_begin would, for the semantics that run before the
 * call); 0 when the full path is to take it: a timed call, recording off, a new thread.
 */
static inline __attribute__((always_inline)) int jp_quick(struct jp_call *c, int id)
{
    struct jp_thread *t = jp_self;
    if (__builtin_expect(t == NULL || !jp_on, 0)) {
        return 0;
    }
    struct jp_fstat *s = &t->f[id];
    if (__builtin_expect(s->skip == 0, 0)) {
        return 0;
    }
    s->skip--;
    c->t = t;
    c->ra = (uintptr_t)*t->caller;
    t->recall = 0; /* (as jp_begin: not a lean call) */
    c->t0 = 0;
    c->t1 = 0;
    c->on = 1;
    c->sent = 0;
    c->recv = 0;
    c->nomatrix = 0;
    c->id = id;
    return 1;
}

/*
 * The lean path's checks (jp_lean): the thread, or NULL when the call is to take the full wrapper
 * instead (a timed call, recording off, a new thread, a call site other than the one the function's
 * full path found last: the full wrapper then finds or makes its entry, and caches it).
 */
static inline __attribute__((always_inline)) struct jp_thread *jp_lean_ok(int id)
{
    struct jp_thread *t = jp_self;
    if (__builtin_expect(t == NULL || !jp_on, 0)) {
        return NULL;
    }
    struct jp_fstat *s = &t->f[id];
    if (__builtin_expect(s->skip == 0, 0)) {
        return NULL;
    }
    /* the call site the full path counted last for this function: another one takes the full path */
    if (__builtin_expect((uintptr_t)*t->caller + 1 != s->ra1, 0)) {
        return NULL;
    }
    return t;
}

/*
 * The lean path's count of an untimed call: the thread, or NULL for the full wrapper (jp_lean_ok).
 * Nothing is counted before every check passed, and nothing here calls out, so that a wrapper taking
 * this path keeps no register and makes no frame.
 */
static inline __attribute__((always_inline)) struct jp_thread *jp_lean(int id)
{
    struct jp_thread *t = jp_lean_ok(id);
    if (__builtin_expect(t != NULL, 1)) {
        struct jp_fstat *s = &t->f[id];
        s->skip--;
        s->calls++;
    }
    return t;
}

/*
 * The lean path (a quick call of a function with at most JP_KEEP_MAX arguments): after counting, the
 * wrapper keeps its arguments in the thread's block and ends with the library's call itself (a tail
 * call: no frame, no register saved and restored around it). A polling loop that misses the caches
 * between two calls (HPCC's RandomAccess) pays for every instruction a call adds, far beyond what the
 * same instructions cost in a hot loop (benchmarks/dispatch/cold.sh). Should the call fail into the
 * fatal-error watch, the watch makes it again from the kept arguments (jp_recalls), under the
 * library's own handler, as the framed path's jp_refire does after the call returns.
 */
/* v: a variable holding argument k, of the type the parameter has in the function */
#define jp_keep(t, k, v) do { \
        _Static_assert(sizeof(v) <= sizeof(uint64_t), "an argument fits in a kept word"); \
        __builtin_memcpy(&(t)->args[k], &(v), sizeof(v)); \
    } while (0)
#define jp_kept(args, k, a) __builtin_memcpy(&(a), &(args)[k], sizeof(a))
/* per function id, the lean path's call again from its kept arguments (NULL: no lean path; generated) */
extern void (*const jp_recalls[JP_NFUNC])(const uint64_t *args);
/* per function id, the lean path of a function with bytes taken back from its kept arguments (jp_lean_send
 * with sign -1; NULL: none; generated): 1 if it was */
extern int (*const jp_unleans[JP_NFUNC])(struct jp_thread *t, const uint64_t *args);

static inline __attribute__((always_inline)) void jp_stop(struct jp_call *c)
{
    c->t1 = c->t0 ? jp_ticks() : 0;
}

static inline __attribute__((always_inline)) int jp_bucket(int64_t bytes)
{
    if (bytes <= 0) {
        return 0;
    }
    int b = 64 - __builtin_clzll((uint64_t)bytes);
    return b < JP_BUCKETS - 1 ? b : JP_BUCKETS - 1;
}

static inline __attribute__((always_inline)) void jp_end(struct jp_call *c, int id, int has_bytes)
{
    if (!c->on) {
        return;
    }
    struct jp_fstat *s = &c->t->f[id];
    struct jp_site *e = c->t->sites ? jp_site(c->t, c->ra, id) : NULL;
    /* the lean path's (ProfileEmitter): its calls since are in the site they came from, and it counts
     * the next ones from this call's site (site entries never move: the table does not grow) */
    uint64_t lean = s->calls - s->mcalls;
    if (lean && s->site && e) { /* (e NULL: no sites now, jp_sites_drop's tables stay untouched) */
        s->site->calls += lean;
        s->site->bytes += s->sent + s->recv - s->mbytes;
    }
    s->ra1 = c->ra + 1;
    s->site = e;
    int bucket = 0;
    s->calls++;
    if (e) {
        e->calls++;
    }
    if (has_bytes) {
        s->sent += (uint64_t)c->sent;
        s->recv += (uint64_t)c->recv;
        if (e) {
            e->bytes += (uint64_t)c->sent + (uint64_t)c->recv;
        }
        bucket = jp_bucket(c->sent > c->recv ? c->sent : c->recv);
        c->t->hist[id][bucket]++;
    }
    s->mcalls = s->calls;
    s->mbytes = s->sent + s->recv;
    if (!c->t0) {
        return;
    }
    uint64_t d = c->t1 - c->t0;
    uint64_t w = d;
    if (__builtin_expect(s->n > 1, 0)) {
        w = jp_sampled(c->t, s, d);
    }
    s->ticks += w;
    if (has_bytes) {
        c->t->hticks[id][bucket] += w;
    }
    if (e) {
        e->ticks += w;
    }
    if (d - 1 < s->min - 1) { /* min == 0 means none yet */
        s->min = d;
    }
    if (d > s->max) {
        s->max = d;
    }
    s->wticks += (uint32_t)(d < (1u << 24) ? d : (1u << 24));
    if (__builtin_expect((++s->timed & (JP_WINDOW - 1)) == 0, 0)) {
        jp_adapt(c->t, s);
    }
}

/* Counts: scalar counts are passed as int64_t; arrays with their element width (int or MPI_Count). */
#define JP_ARR(a) ((const void *)(a)), sizeof(*(a))
#define JP_TYPES(a) ((const MPI_Datatype *)(a))

extern uint64_t jp_type_epoch;
int64_t jp_tsize_miss(struct jp_thread *th, MPI_Datatype t, unsigned slot);

/* the thread's cache slot of datatype t */
#define jp_tslot(t) ((unsigned)(((uintptr_t)(t) >> 4) ^ (uintptr_t)(t)) & 7)

/* t's size from the thread's cache, in *size: 1 if there (sign > 0: and still good; sign -1, jp_lean_send's undo:
 * as it was for the call being taken back, which nothing on its thread has changed since) */
static inline __attribute__((always_inline)) int jp_tsize_known(const struct jp_thread *th, MPI_Datatype t, int sign,
                                                                int64_t *size)
{
    unsigned slot = jp_tslot(t);
    if (th->tcache[slot].key != (uintptr_t)t
        || (sign > 0 && th->tcache[slot].epoch != __atomic_load_n(&jp_type_epoch, __ATOMIC_RELAXED))) {
        return 0;
    }
    *size = th->tcache[slot].size;
    return 1;
}

/* MPI_Type_size_x, from a small per-thread cache that MPI_Type_free invalidates. */
static inline __attribute__((always_inline)) int64_t jp_tsize(struct jp_call *c, MPI_Datatype t)
{
    int64_t size;
    if (__builtin_expect(jp_tsize_known(c->t, t, 1, &size), 1)) {
        return size;
    }
    return jp_tsize_miss(c->t, t, jp_tslot(t));
}

/* rank r (>= 0) of the group the thread looked up last (rec_comm.c), in *x, if it is that of handle
 * `key` of `kind` (1 communicator, 2 window) and (sign > 0) still good: 1 if so */
static inline __attribute__((always_inline)) int jp_wcache_hit(const struct jp_thread *t, uintptr_t key, int kind,
                                                               int r, int sign, int *x)
{
    if (t->wcache.key != key || t->wcache.kind != kind
        || (sign > 0 && t->wcache.gen != __atomic_load_n(&jp_maps_gen, __ATOMIC_ACQUIRE))) {
        return 0;
    }
    *x = r < t->wcache.n ? t->wcache.world[r] : -1;
    return 1;
}

/* the world rank of rank r of comm (r >= 0) from what the thread knows, in *w (-1: none, or oneself) */
static inline __attribute__((always_inline)) int jp_world_known(const struct jp_thread *t, MPI_Comm comm, int r, int sign,
                                                                int *w)
{
    int x = r;
    if (comm != MPI_COMM_WORLD && !jp_wcache_hit(t, (uintptr_t)comm, 1, r, sign, &x)) {
        return 0;
    }
    *w = x < 0 || x >= jp_world_size || x == jp_world_rank ? -1 : x; /* (MPI_UNDEFINED is negative) */
    return 1;
}

/*
 * The lean path of a function with bytes (semantics.json's "lean"), after jp_lean_ok: sign 1 counts
 * an untimed call from its arguments as its full path would (the call, its bytes and size bucket, the
 * matrix), when that needs no call out: the datatype's size in the thread's cache, the communicator's
 * world ranks too (or MPI_COMM_WORLD), the thread's matrix row made. 1 when counted; 0 for the full
 * wrapper, nothing counted. Sign -1 takes back such a call that the fatal-error watch saw fail
 * (jp_fatal_lean, from the kept arguments): the caches then answer as they did for the call, which
 * nothing on its thread has changed since.
 */
static inline __attribute__((always_inline)) void jp_lean_count(struct jp_thread *t, int id, int sign, int64_t sent,
                                                                int64_t recv)
{
    struct jp_fstat *s = &t->f[id];
    uint64_t d = (uint64_t)(int64_t)sign;
    s->calls += d;
    if (sign > 0) {
        s->skip--;
    }
    s->sent += d * (uint64_t)sent;
    s->recv += d * (uint64_t)recv;
    t->hist[id][jp_bucket(sent > recv ? sent : recv)] += d;
}

/*
 * The lean path of a call that sends to dest and receives from source (MPI_Sendrecv and its _replace):
 * either side is left out by MPI_PROC_NULL (jp_lean_send and jp_lean_recv below pass it as a constant,
 * which takes that side away at compile time). Every check is made before anything is counted, so that a
 * call either is counted whole here or goes to the full wrapper with nothing counted.
 */
static inline __attribute__((always_inline)) int jp_lean_sendrecv(struct jp_thread *t, int id, int sign,
                                                                  int64_t scount, MPI_Datatype stype, int dest,
                                                                  MPI_Comm comm, int64_t rcount, MPI_Datatype rtype,
                                                                  int source)
{
    int64_t sent = 0;
    int64_t recv = 0;
    int64_t size = 0;
    int w = -1;
    if (dest != MPI_PROC_NULL) { /* moves nothing */
        if (scount > 0) {
            if (!jp_tsize_known(t, stype, sign, &size)) {
                return 0;
            }
            sent = scount * size;
        }
        if (dest >= 0 && (!jp_world_known(t, comm, dest, sign, &w) || (w >= 0 && !t->matrix))) {
            return 0;
        }
    }
    if (source != MPI_PROC_NULL && rcount > 0) {
        if (!jp_tsize_known(t, rtype, sign, &size)) {
            return 0;
        }
        recv = rcount * size;
    }
    jp_lean_count(t, id, sign, sent, recv);
    if (w >= 0) {
        t->matrix[2 * w] += (uint64_t)(int64_t)sign;
        t->matrix[2 * w + 1] += (uint64_t)(int64_t)sign * (uint64_t)sent;
    }
    return 1;
}

/* jp_send's lean path */
static inline __attribute__((always_inline)) int jp_lean_send(struct jp_thread *t, int id, int sign, int64_t count,
                                                              MPI_Datatype type, int dest, MPI_Comm comm)
{
    return jp_lean_sendrecv(t, id, sign, count, type, dest, comm, 0, type, MPI_PROC_NULL);
}

/* jp_recv_from's lean path */
static inline __attribute__((always_inline)) int jp_lean_recv(struct jp_thread *t, int id, int sign, int64_t count,
                                                              MPI_Datatype type, int source)
{
    return jp_lean_sendrecv(t, id, sign, 0, type, MPI_PROC_NULL, MPI_COMM_NULL, count, type, source);
}

/*
 * point-to-point. The hot helpers take scalars, not the jp_call, so that a wrapper's jp_call can
 * live in registers (its address escaping costs loads and stores on every call).
 */
void jp_send_peer(struct jp_thread *t, int64_t bytes, int dest, MPI_Comm comm);

static inline __attribute__((always_inline)) void jp_send(struct jp_call *c, int64_t count, MPI_Datatype t, int dest, MPI_Comm comm)
{
    if (dest == MPI_PROC_NULL) { /* moves nothing */
        return;
    }
    int64_t bytes = count > 0 ? count * jp_tsize(c, t) : 0;
    c->sent += bytes;
    if (c->on && dest >= 0 && !c->nomatrix) {
        jp_send_peer(c->t, bytes, dest, comm);
    }
}

static inline __attribute__((always_inline)) void jp_recv(struct jp_call *c, int64_t count, MPI_Datatype t)
{
    c->recv += count > 0 ? count * jp_tsize(c, t) : 0;
}

/* a receive from `source`: nothing from MPI_PROC_NULL */
static inline __attribute__((always_inline)) void jp_recv_from(struct jp_call *c, int64_t count, MPI_Datatype t, int source)
{
    if (source != MPI_PROC_NULL) {
        jp_recv(c, count, t);
    }
}

/* bytes out without a peer (file writes) */
static inline __attribute__((always_inline)) void jp_out(struct jp_call *c, int64_t count, MPI_Datatype t)
{
    c->sent += count > 0 ? count * jp_tsize(c, t) : 0;
}
/* The fatal-error watch (recorder.c): MPI_ERRORS_ARE_FATAL on a communicator is the recorder's
 * handler, which writes the rank's figures and then lets the library's own fatal handler run; the
 * application sees and sets MPI_ERRORS_ARE_FATAL as always. */
MPI_Errhandler jp_errhandler_in(MPI_Errhandler h);
/* set by the watch on this thread: the failed call is to be made again, now under the library's handler */
extern __thread int jp_refire __attribute__((tls_model("initial-exec")));
void jp_errhandler_out(MPI_Errhandler *h);
/* Windows: a new window's MPI_ERRORS_ARE_FATAL becomes the watch; set and get as for communicators. */
void jp_watch_win(MPI_Win win);
MPI_Errhandler jp_win_errhandler_in(MPI_Errhandler h);
void jp_win_errhandler_out(MPI_Errhandler *h);
/* The sessions model: the first MPI_Session_init starts recording where MPI_Init has not; the last
 * MPI_Session_finalize of such a run ends it as MPI_Finalize would. */
void jp_session_started(void);
void jp_session_ending(void);

/* file I/O that completed with `status`: the bytes it says moved (MPI_Get_count in MPI_BYTE) */
int64_t jp_status_bytes(int rc, const MPI_Status *status);
static inline void jp_io_in(struct jp_call *c, int rc, const MPI_Status *status)
{
    c->recv += jp_status_bytes(rc, status);
}
static inline void jp_io_out(struct jp_call *c, int rc, const MPI_Status *status)
{
    c->sent += jp_status_bytes(rc, status);
}
void jp_psend_init(int64_t count, MPI_Datatype t, int dest, MPI_Comm comm, MPI_Request req);
void jp_precv_init(int64_t count, MPI_Datatype t, MPI_Request req);
void jp_start(struct jp_call *c, int n, const MPI_Request *reqs);

/* Requests the recorder follows now (rec_requests.c): while none, a completion call has nothing to
 * save or look up (semantics.json's "quick_when": such calls may take the quick path). */
extern volatile int jp_req_live;
/* Bumped by every request the recorder starts following (rec_requests.c); never has JP_FOLLOWED. */
extern volatile uint64_t jp_req_gen;
#define JP_FOLLOWED (1ull << 63)
/* Looks the handle up and notes what it found in t (rec_requests.c). */
void jp_req_note(struct jp_thread *t, uintptr_t req);

/*
 * 1 when a completion call of these n handles has nothing to look up after it: no request is
 * followed, or its one handle is not (a non-blocking call's, as in a polling loop while persistent
 * requests are set up): it may then take the quick path. The full path notes what the table says of a
 * one-handle call's handle (jp_reqs_save), with the table's generation, so that polling the same
 * handle again costs a comparison here; a request followed since (a new one may reuse a handle)
 * changes the generation.
 */
static inline __attribute__((always_inline)) int jp_unfollowed(int n, const MPI_Request *reqs)
{
    if (!jp_req_live) {
        return 1;
    }
    struct jp_thread *t = jp_self;
    return n == 1 && reqs && t && t->nf_req == (uintptr_t)reqs[0]
        && t->nf_gen == __atomic_load_n(&jp_req_gen, __ATOMIC_ACQUIRE);
}
/* request completion: copy the handles before the call (only while requests are tracked) */
#define JP_REQS_MAX_STACK 64
struct jp_reqs {
    MPI_Request *r;
    int n;
    MPI_Request stack[JP_REQS_MAX_STACK];
};
/* more than JP_REQS_MAX_STACK handles: on the heap (rec_requests.c) */
void jp_reqs_save_heap(struct jp_reqs *s, int n, const MPI_Request *reqs);
/* (inline: a polling MPI_Test* pays no call for it while requests are tracked) */
static inline __attribute__((always_inline)) void jp_reqs_save(struct jp_reqs *s, int n, const MPI_Request *reqs)
{
    s->r = NULL;
    s->n = 0;
    if (!jp_req_live || n <= 0 || !reqs) {
        return;
    }
    if (__builtin_expect(n > JP_REQS_MAX_STACK, 0)) {
        jp_reqs_save_heap(s, n, reqs);
        return;
    }
    if (n == 1) {
        struct jp_thread *t = jp_self;
        if (t && (t->nf_req != (uintptr_t)reqs[0]
                  || (t->nf_gen & ~JP_FOLLOWED) != __atomic_load_n(&jp_req_gen, __ATOMIC_ACQUIRE))) {
            jp_req_note(t, (uintptr_t)reqs[0]);
        }
    }
    for (int i = 0; i < n; i++) {
        MPI_Request r = reqs[i];
        __asm__("" : "+r"(r)); /* a plain loop: as a copy idiom it became `rep movsq`, ~30 cycles to start */
        s->stack[i] = r;
    }
    s->r = s->stack;
    s->n = n;
}
/* which: NULL = all n; else the n indices listed */
void jp_reqs_done(struct jp_call *c, struct jp_reqs *s, int n, const int *which);
/* gives back a copy jp_reqs_save_heap made (rec_requests.c) */
void jp_reqs_release_heap(struct jp_reqs *s);
static inline __attribute__((always_inline)) void jp_reqs_release(struct jp_reqs *s)
{
    if (s->r && s->r != s->stack) {
        jp_reqs_release_heap(s);
    }
    s->r = NULL;
}
void jp_request_freed(struct jp_call *c, MPI_Request req);
void jp_request_cancelled(MPI_Request req);

/* collectives (intra-communicators: pairwise messages into the matrix; inter: bytes only) */
void jp_bcast(struct jp_call *c, int64_t count, MPI_Datatype t, int root, MPI_Comm comm);
void jp_gather(struct jp_call *c, int64_t sc, MPI_Datatype st, int64_t rc, MPI_Datatype rt, int root, MPI_Comm comm);
void jp_gatherv(struct jp_call *c, int64_t sc, MPI_Datatype st, const void *rcs, size_t w, MPI_Datatype rt, int root,
                MPI_Comm comm);
void jp_scatter(struct jp_call *c, int64_t sc, MPI_Datatype st, int64_t rc, MPI_Datatype rt, int root, MPI_Comm comm);
void jp_scatterv(struct jp_call *c, const void *scs, size_t w, MPI_Datatype st, int64_t rc, MPI_Datatype rt, int root,
                 MPI_Comm comm);
void jp_allgather(struct jp_call *c, const void *sbuf, int64_t sc, MPI_Datatype st, int64_t rc, MPI_Datatype rt,
                  MPI_Comm comm);
void jp_allgatherv(struct jp_call *c, const void *sbuf, int64_t sc, MPI_Datatype st, const void *rcs, size_t w,
                   MPI_Datatype rt, MPI_Comm comm);
void jp_alltoall(struct jp_call *c, const void *sbuf, int64_t sc, MPI_Datatype st, int64_t rc, MPI_Datatype rt,
                 MPI_Comm comm);
void jp_alltoallv(struct jp_call *c, const void *sbuf, const void *scs, size_t sw, MPI_Datatype st, const void *rcs,
                  size_t rw, MPI_Datatype rt, MPI_Comm comm);
void jp_alltoallw(struct jp_call *c, const void *sbuf, const void *scs, size_t sw, const MPI_Datatype *sts,
                  const void *rcs, size_t rw, const MPI_Datatype *rts, MPI_Comm comm);
void jp_reduce(struct jp_call *c, int64_t count, MPI_Datatype t, int root, MPI_Comm comm);
void jp_allreduce(struct jp_call *c, int64_t count, MPI_Datatype t, MPI_Comm comm);
void jp_reduce_scatter(struct jp_call *c, const void *rcs, size_t w, MPI_Datatype t, MPI_Comm comm);
void jp_reduce_scatter_block(struct jp_call *c, int64_t rc, MPI_Datatype t, MPI_Comm comm);
void jp_scan(struct jp_call *c, int64_t count, MPI_Datatype t, MPI_Comm comm, int exclusive);
/* a barrier: no bytes, its communicator's size */
void jp_barrier(struct jp_call *c, MPI_Comm comm);
/* neighbourhood collectives: bytes from the topology's neighbours, none with a Cartesian edge's MPI_PROC_NULL (no matrix) */
void jp_neighbor(struct jp_call *c, int64_t sc, MPI_Datatype st, int64_t rc, MPI_Datatype rt, MPI_Comm comm);
void jp_neighborv(struct jp_call *c, int64_t sc, MPI_Datatype st, const void *scs, size_t sw, const void *rcs,
                  size_t rw, MPI_Datatype rt, int64_t rc, MPI_Comm comm);
void jp_neighborw(struct jp_call *c, const void *scs, size_t sw, const MPI_Datatype *sts, const void *rcs, size_t rw,
                  const MPI_Datatype *rts, MPI_Comm comm);
/* persistent collectives: bytes at each start */
void jp_pcoll_init(struct jp_call *c, MPI_Request req);

/* one-sided, origin side */
void jp_rma(struct jp_call *c, int64_t sent, int64_t recv, int target, MPI_Win win);

/* handles going away */
void jp_comm_freed(MPI_Comm comm);
void jp_win_freed(MPI_Win win);
void jp_type_freed(void);

#endif
