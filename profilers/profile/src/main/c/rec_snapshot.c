/*
 * rec_snapshot.c - the profile recorder's snapshot: the layout the Java level reads (Snapshot.java),
 * streamed from every thread's counters into a buffer (at MPI_Finalize) or into ranks/rank-R.bin
 * (when a rank ends any other way), and the functions the other levels call.
 */
#define _GNU_SOURCE
#include "recorder_private.h"
#include "snapshot.h"
#include "rec_sym.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <fenv.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- snapshot */

/*
 * The snapshot: little-endian, 8-byte aligned sections (Snapshot.java reads it):
 *   header (512 bytes, struct jp_header in snapshot.h), names (nfunc x 48 bytes, NUL-padded),
 *   stats (nfunc x 6 u64: calls, ticks, min, max, sent, recv), timing (nfunc x (u64 calls timed,
 *   f64 variance of the ticks as an estimate, ticks^2): version 2 on), histograms (nfunc x 48 u64),
 *   matrix (matrix_ranks x 2 u64: messages, bytes); version 3 on: struct jp_v3 (snapshot.h), then one
 *   detail record per function called (JP_DETAIL_BYTES each).
 */

#define JP_NAME 48

typedef int (*jp_sink)(void *ctx, const void *data, size_t n);

static int jp_write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/*
 * A file sink that writes in 16 KiB blocks (on the stack: the dump may run in a signal handler):
 * the snapshot comes in ~3 pieces per function, and a dump of one write(2) per piece took long
 * enough (hundreds of system calls) for Open MPI's SIGKILL, ~10 ms after its SIGTERM, to cut it
 * short, leaving only rank-R.bin.tmp.
 */
struct jp_fdbuf {
    int fd;
    size_t used;
    char buf[16384];
};

static int jp_fd_sink(void *ctx, const void *data, size_t n)
{
    struct jp_fdbuf *b = ctx;
    if (b->used + n > sizeof b->buf) {
        if (jp_write_all(b->fd, b->buf, b->used)) {
            return -1;
        }
        b->used = 0;
        if (n > sizeof b->buf) {
            return jp_write_all(b->fd, data, n);
        }
    }
    memcpy(b->buf + b->used, data, n);
    b->used += n;
    return 0;
}

struct jp_membuf {
    char *p;
    size_t used, cap;
};

static int jp_mem_sink(void *ctx, const void *data, size_t n)
{
    struct jp_membuf *m = ctx;
    if (m->used + n > m->cap) {
        return -1;
    }
    memcpy(m->p + m->used, data, n);
    m->used += n;
    return 0;
}

static double jp_tick_rate(void)
{
#if defined(__x86_64__) || defined(__i386__)
    /*
     * Ticks per second from the time since MPI_Init. The two clocks are read ~50 ns apart, so 1 ms
     * already gives the rate to 1e-4; waiting longer would only delay a dump that SIGKILL may cut.
     */
    struct timespec a;
    uint64_t t0 = jp_init_ticks;
    struct timespec m0 = jp_init_mono;
    if (!t0) {
        t0 = jp_ticks();
        clock_gettime(CLOCK_MONOTONIC, &m0);
    }
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &a);
        uint64_t t1 = jp_ticks();
        double ns = (double)(a.tv_sec - m0.tv_sec) * 1e9 + (double)(a.tv_nsec - m0.tv_nsec);
        if (ns >= 1e6) {
            return (double)(t1 - t0) / ns * 1e9;
        }
    }
#else
    return 1e9;
#endif
}

/* Where each section of this rank's snapshot starts, and its size. */
struct jp_layout {
    size_t names, stats, timing, hist, matrix, v3, size; /* size: with a detail record for every function, the most */
};

#define JP_DETAIL JP_DETAIL_BYTES(JP_BUCKETS, JP_CBUCKETS)
/* the words of a detail record after its index: buffer bytes, size buckets' ticks, communicator sizes'
 * calls and ticks (91, at most 128: a two-word bitmap on the wire) */
#define JP_DETAIL_WORDS ((JP_DETAIL - 8) / 8)
_Static_assert(JP_DETAIL_WORDS <= 128 && JP_DETAIL_WORDS > 64, "a detail record's words fit the wire's bitmap");

static struct jp_layout jp_layout(void)
{
    struct jp_layout l;
    l.names = sizeof(struct jp_header);
    l.stats = l.names + (size_t)JP_NFUNC * JP_NAME;
    l.timing = l.stats + (size_t)JP_NFUNC * 6 * 8;
    l.hist = l.timing + (size_t)JP_NFUNC * 2 * 8;
    l.matrix = l.hist + (size_t)JP_NFUNC * JP_BUCKETS * 8;
    l.v3 = l.matrix + (size_t)(jp_world_size > 0 ? jp_world_size : 0) * 16;
    l.size = l.v3 + sizeof(struct jp_v3) + (size_t)JP_NFUNC * JP_DETAIL;
    return l;
}

static size_t jp_snapshot_size(void)
{
    return jp_layout().size;
}

extern const char *const jp_names[JP_NFUNC];
extern const char jp_impl[];

/* From the end of MPI_Init to the start of MPI_Finalize, or to now. */
static uint64_t jp_app_ticks(void)
{
    uint64_t end = jp_end_ticks ? jp_end_ticks : jp_ticks();
    return jp_init_ticks && end > jp_init_ticks ? end - jp_init_ticks : 0;
}

/*
 * The shortest interval two back-to-back reads of the clock show, in ticks: the timer's resolution,
 * below which a call's time means nothing (the reports floor the shortest calls at it). Measured
 * once, at the first snapshot (a few microseconds; async-signal-safe: clock reads only).
 */
static uint64_t jp_timer_ticks(void)
{
    static volatile uint64_t measured;
    if (!measured) {
        uint64_t best = UINT64_MAX;
        for (int i = 0; i < 256; i++) {
            uint64_t t0 = jp_ticks();
            uint64_t t1 = jp_ticks();
            if (t1 - t0 < best) {
                best = t1 - t0;
            }
        }
        measured = best ? best : 1;
    }
    return measured;
}

static void jp_header(struct jp_header *h, int state, int detail)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, JP_SNAPSHOT_MAGIC, 8);
    h->version = JP_SNAPSHOT_VERSION;
    h->header_size = sizeof *h;
    h->nfunc = JP_NFUNC;
    h->nbuckets = JP_BUCKETS;
    h->world_rank = jp_world_rank;
    h->world_size = jp_world_size;
    h->state = state;
    h->detail = detail;
    h->pid = (uint64_t)getpid();
    h->ticks_per_second = jp_tick_rate();
    h->per_call_ns = jp_per_call_ns;
    h->init_unix_ns = jp_init_unix_ns;
    h->app_ticks = jp_app_ticks();
    h->matrix_ranks = jp_world_size > 0 ? (uint64_t)jp_world_size : 0;
    memcpy(h->host, jp_host, sizeof h->host);
    strncpy(h->impl, jp_impl, sizeof h->impl - 1);
    memcpy(h->jobid, jp_jobid, sizeof h->jobid);
    memcpy(h->step, jp_step, sizeof h->step);
    memcpy(h->exe, jp_exe, sizeof h->exe);
    h->timer_ticks = jp_timer_ticks();
}

/* Streams the snapshot, adding up every thread's counters on the way (no allocation). */
static int jp_emit(jp_sink sink, void *ctx, int state, int detail)
{
    /* the calls first: they decide which functions have a detail record (version 3) */
    uint64_t calls[JP_NFUNC];
    uint64_t ticks[JP_NFUNC];
    uint32_t ndetail = 0;
    for (int f = 0; f < JP_NFUNC; f++) {
        calls[f] = 0;
        for (struct jp_thread *t = jp_threads; t; t = t->next) {
            calls[f] += t->f[f].calls;
        }
        ndetail += calls[f] != 0;
    }
    struct jp_header h;
    jp_header(&h, state, detail);
    if (sink(ctx, &h, sizeof h)) {
        return -1;
    }
    char name[JP_NAME];
    for (int f = 0; f < JP_NFUNC; f++) {
        memset(name, 0, sizeof name);
        strncpy(name, jp_names[f], sizeof name - 1);
        if (sink(ctx, name, sizeof name)) {
            return -1;
        }
    }
    /*
     * Other threads (and the one a signal interrupted) may be inside a recorded call while this
     * reads: each figure is read once and the snapshot kept as consistent as a quiet one (what
     * Snapshot.read checks): a call that was counted but not yet timed gets its time from the
     * longest, a function's size buckets hold no more calls than its count read before them, and a
     * rank gets no bytes without a message. Quiet snapshots (MPI_Finalize) are not changed by it.
     */
    for (int f = 0; f < JP_NFUNC; f++) {
        uint64_t s[6] = {calls[f], 0, 0, 0, 0, 0};
        for (struct jp_thread *t = jp_threads; t; t = t->next) {
            const struct jp_fstat *x = &t->f[f];
            s[1] += x->ticks;
            if (x->min && (!s[2] || x->min < s[2])) {
                s[2] = x->min;
            }
            if (x->max > s[3]) {
                s[3] = x->max;
            }
            s[4] += x->sent;
            s[5] += x->recv;
        }
        if (s[0] == 0) {
            memset(s, 0, sizeof s);
        } else {
            if (s[3] < s[2]) {
                s[3] = s[2];
            }
            if (s[1] < s[3]) {
                s[1] = s[3];
            }
        }
        ticks[f] = s[1];
        if (sink(ctx, s, sizeof s)) {
            return -1;
        }
    }
    /* how many calls were timed (no more than counted) and the variance of the sampled time */
    for (int f = 0; f < JP_NFUNC; f++) {
        uint64_t timed = 0;
        unsigned __int128 var = 0;
        for (struct jp_thread *t = jp_threads; t; t = t->next) {
            timed += t->f[f].timed;
            var += t->var[f];
        }
        uint64_t rec[2];
        double v = timed < calls[f] ? (double)var : 0;
        rec[0] = timed < calls[f] ? timed : calls[f];
        memcpy(&rec[1], &v, 8);
        if (sink(ctx, rec, sizeof rec)) {
            return -1;
        }
    }
    for (int f = 0; f < JP_NFUNC; f++) {
        uint64_t b[JP_BUCKETS];
        memset(b, 0, sizeof b);
        for (struct jp_thread *t = jp_threads; t; t = t->next) {
            for (int k = 0; k < JP_BUCKETS; k++) {
                b[k] += t->hist[f][k];
            }
        }
        uint64_t in = 0;
        for (int k = 0; k < JP_BUCKETS; k++) {
            if (b[k] > calls[f] - in) {
                b[k] = calls[f] - in;
            }
            in += b[k];
        }
        if (sink(ctx, b, sizeof b)) {
            return -1;
        }
    }
    uint64_t row[2 * 256];
    for (int base = 0; base < jp_world_size; base += 256) {
        int n = jp_world_size - base < 256 ? jp_world_size - base : 256;
        memset(row, 0, sizeof row);
        for (struct jp_thread *t = jp_threads; t; t = t->next) {
            if (t->matrix) {
                for (int i = 0; i < 2 * n; i++) {
                    row[i] += t->matrix[2 * (size_t)base + (size_t)i];
                }
            }
        }
        for (int i = 0; i < n; i++) {
            if (row[2 * i] == 0) {
                row[2 * i + 1] = 0;
            }
        }
        if (sink(ctx, row, sizeof(uint64_t) * 2 * (size_t)n)) {
            return -1;
        }
    }
    struct jp_v3 v;
    memset(&v, 0, sizeof v);
    v.start_ticks = jp_start_ticks;
    v.finalize_ticks = state == JP_FINALIZE && jp_end_ticks ? jp_ticks() - jp_end_ticks : 0;
    v.ndetail = ndetail;
    v.ncbuckets = JP_CBUCKETS;
    if (sink(ctx, &v, sizeof v)) {
        return -1;
    }
    /*
     * The detail of each function called, kept as consistent with the figures above as they are with
     * each other: a size bucket's or a communicator size's time adds up to no more than the function's
     * time, the calls by communicator size to no more than its calls.
     */
    for (uint32_t f = 0; f < JP_NFUNC; f++) {
        if (!calls[f]) {
            continue;
        }
        uint64_t rec[JP_DETAIL / 8];
        memset(rec, 0, sizeof rec);
        memcpy(rec, &f, 4);
        uint64_t *ht = rec + 2, *cc = ht + JP_BUCKETS, *ct = cc + JP_CBUCKETS;
        for (struct jp_thread *t = jp_threads; t; t = t->next) {
            rec[1] += t->cbuf[f];
            for (int k = 0; k < JP_BUCKETS; k++) {
                ht[k] += t->hticks[f][k];
            }
            for (int k = 0; k < JP_CBUCKETS; k++) {
                cc[k] += t->ccalls[f][k];
                ct[k] += t->cticks[f][k];
            }
        }
        uint64_t in = 0, incalls = 0, inticks = 0;
        for (int k = 0; k < JP_BUCKETS; k++) {
            ht[k] = ht[k] > ticks[f] - in ? ticks[f] - in : ht[k];
            in += ht[k];
        }
        for (int k = 0; k < JP_CBUCKETS; k++) {
            cc[k] = cc[k] > calls[f] - incalls ? calls[f] - incalls : cc[k];
            incalls += cc[k];
            ct[k] = ct[k] > ticks[f] - inticks ? ticks[f] - inticks : ct[k];
            inticks += ct[k];
        }
        if (sink(ctx, rec, sizeof rec)) {
            return -1;
        }
    }
    return 0;
}

/* v in decimal at out, NUL-terminated (no stdio: jp_dump runs in signal handlers). */
static void jp_format_long(char *out, long v)
{
    char digits[24];
    int n = 0;
    unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u && n < (int)sizeof digits);
    if (v < 0) {
        *out++ = '-';
    }
    while (n) {
        *out++ = digits[--n];
    }
    *out = 0;
}

/*
 * A new file `path` from what `emit` streams into it: a temporary file beside it, then one rename.
 * Never a file that is there, never through a link, readable by its user only, in a directory no
 * other user can write (jp_start_output checked it). Async-signal-safe.
 */
struct jp_bytes {
    const void *p;
    size_t n;
};

static int jp_write_file(const char *path, const struct jp_bytes *bytes, int state, int detail)
{
    char tmp[PATH_MAX + 128];
    size_t n = strlen(path);
    if (n + 40 > sizeof tmp) {
        return -1;
    }
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".", 2);
    jp_format_long(tmp + n + 1, (long)getpid());
    n = strlen(tmp);
    memcpy(tmp + n, ".tmp", 5);
    int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int fd = open(tmp, flags, 0600);
    if (fd < 0 && errno == EEXIST && unlink(tmp) == 0) {
        fd = open(tmp, flags, 0600); /* left by an earlier dump of this process that was cut short */
    }
    if (fd < 0) {
        return -1;
    }
    int ok;
    if (bytes) {
        ok = jp_write_all(fd, bytes->p, bytes->n) == 0;
    } else {
        struct jp_fdbuf b;
        b.fd = fd;
        b.used = 0;
        ok = jp_emit(jp_fd_sink, &b, state, detail) == 0 && jp_write_all(fd, b.buf, b.used) == 0;
    }
    ok = close(fd) == 0 && ok;
    if (ok && rename(tmp, path) == 0) {
        return 0;
    }
    unlink(tmp);
    return -1;
}

/*
 * Rank 0's ranks/run-0.txt: its own command line and the JPMPI_* settings it runs with, for the
 * header of a profile whose job was not started by jpmpi run (which knows the launcher's command
 * line and puts that in the profile instead). Records "a<word>" and "e<NAME=value>", each ended by
 * a NUL. Written once, beside rank 0's first dump; async-signal-safe (open, read, no allocation).
 */
extern char **environ;
static char jp_run_raw[16384];
static char jp_run_buf[32768];
static int jp_run_written;

static size_t jp_run_record(size_t n, char kind, const char *text, size_t len)
{
    if (n + len + 2 > sizeof jp_run_buf) {
        return n;
    }
    jp_run_buf[n++] = kind;
    memcpy(jp_run_buf + n, text, len);
    n += len;
    jp_run_buf[n++] = 0;
    return n;
}

static void jp_write_run(void)
{
    const char *slash = strrchr(jp_dump_path, '/');
    if (jp_world_rank != 0 || jp_run_written || !slash || (size_t)(slash - jp_dump_path) + 16 > PATH_MAX) {
        return;
    }
    jp_run_written = 1;
    size_t n = 0;
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        size_t len = 0;
        ssize_t got;
        while (len < sizeof jp_run_raw && (got = read(fd, jp_run_raw + len, sizeof jp_run_raw - len)) > 0) {
            len += (size_t)got;
        }
        close(fd);
        size_t start = 0;
        for (size_t i = 0; i < len; i++) {
            if (jp_run_raw[i] == 0) {
                n = jp_run_record(n, 'a', jp_run_raw + start, i - start);
                start = i + 1;
            }
        }
    }
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "JPMPI_", 6) == 0) {
            n = jp_run_record(n, 'e', *e, strlen(*e));
        }
    }
    char path[PATH_MAX + 16];
    size_t dir = (size_t)(slash - jp_dump_path);
    memcpy(path, jp_dump_path, dir);
    memcpy(path + dir, "/run-0.txt", 11);
    struct jp_bytes bytes = {jp_run_buf, n};
    jp_write_file(path, &bytes, 0, 0);
}

/* Writes ranks/rank-R.bin (temp file + rename). Async-signal-safe apart from the clock reads. */
static volatile int jp_dumping; /* a dump is being written (a signal's dump then waits for none: skipped) */

void jp_dump(int state, int detail)
{
    if (state != JP_FLUSH) {
        jp_periodic_quiesce(); /* the end's figures neither skipped for nor replaced by a periodic dump */
    }
    if (jp_dump_path[0] && !__atomic_exchange_n(&jp_dumping, 1, __ATOMIC_ACQUIRE)) {
        /* the clock rate's division raises the inexact flag: the application's thread (MPI_Pcontrol,
         * MPI_Finalize) keeps its floating-point state as it was (layering/README.md) */
        fenv_t fp;
        fegetenv(&fp);
        jp_write_file(jp_dump_path, NULL, state, detail);
        jp_write_run();
        fesetenv(&fp);
        __atomic_store_n(&jp_dumping, 0, __ATOMIC_RELEASE);
    }
}

/*
 * The figures of every rank of jp_own_comm (the world's processes, ranks as in the world) written by
 * its rank 0 alone: the other ranks send it their snapshots (state `state`), and it writes each as
 * ranks/rank-R.bin, taking them in the order they come, with one buffer of one snapshot's size (the
 * size grows with the ranks only by the rank's matrix row). No rank but rank 0 needs the output
 * directory (PROFILE.md, "Where it is written"). Collective; returns 1 when rank 0
 * took the figures (then no rank writes anything else), 0 when it cannot (it has no output
 * directory): then every rank writes its own, as before.
 */
#define JP_GATHER_TAG 0x6a73

/*
 * The snapshot on the wire to rank 0: most of a snapshot is the functions a program never calls
 * (all zero), so a rank sends its header, then only the functions it called (index, 6 stats, the
 * size buckets) and the ranks it sent to (rank, messages, bytes); rank 0, whose recorder is the
 * same library (same functions, buckets and world: checked), writes the snapshot out whole. A few
 * KiB a rank instead of ~190 KiB: across hosts (TCP) the difference was ~15 ms a rank here.
 */
/* The compact form of the whole snapshot `full` into `out` (at least as large); its size. */
static size_t jp_compact(const char *full, char *out)
{
    struct jp_layout l = jp_layout();
    size_t o = 0;
    memcpy(out, full, sizeof(struct jp_header));
    o += sizeof(struct jp_header);
    for (uint32_t f = 0; f < JP_NFUNC; f++) {
        uint64_t calls;
        memcpy(&calls, full + l.stats + (size_t)f * 48, 8);
        if (calls) {
            memcpy(out + o, &f, 4);
            memcpy(out + o + 4, full + l.stats + (size_t)f * 48, 48);
            memcpy(out + o + 52, full + l.hist + (size_t)f * JP_BUCKETS * 8, JP_BUCKETS * 8);
            o += 52 + JP_BUCKETS * 8;
        }
    }
    uint32_t end = UINT32_MAX;
    memcpy(out + o, &end, 4);
    o += 4;
    /* the functions whose time is sampled (fewer calls timed than counted): index, timed, variance;
     * their number in the header (none: the form is as it was before sampled timing) */
    uint32_t sampled = 0;
    for (uint32_t f = 0; f < JP_NFUNC; f++) {
        uint64_t calls, timed;
        memcpy(&calls, full + l.stats + (size_t)f * 48, 8);
        memcpy(&timed, full + l.timing + (size_t)f * 16, 8);
        if (timed < calls) {
            memcpy(out + o, &f, 4);
            memcpy(out + o + 4, full + l.timing + (size_t)f * 16, 16);
            o += 20;
            sampled++;
        }
    }
    memcpy(out + offsetof(struct jp_header, sampled), &sampled, 4);
    /* version 3: the head, then each detail record sparse (most of its words are zero): u32 index, u32
     * number of words that are not, u64 x 2 a bitmap of them (the words after the index: buffer bytes,
     * size buckets' ticks, communicator sizes' calls and ticks), those words */
    struct jp_v3 v;
    memcpy(&v, full + l.v3, sizeof v);
    memcpy(out + o, &v, sizeof v);
    o += sizeof v;
    for (uint32_t i = 0; i < v.ndetail; i++) {
        const char *rec = full + l.v3 + sizeof v + (size_t)i * JP_DETAIL;
        uint64_t map[2] = {0, 0};
        uint32_t n = 0;
        size_t at = o + 24;
        for (unsigned w = 0; w < JP_DETAIL_WORDS; w++) {
            uint64_t x;
            memcpy(&x, rec + 8 + 8 * (size_t)w, 8);
            if (x) {
                map[w / 64] |= (uint64_t)1 << (w % 64);
                memcpy(out + at, &x, 8);
                at += 8;
                n++;
            }
        }
        memcpy(out + o, rec, 4);
        memcpy(out + o + 4, &n, 4);
        memcpy(out + o + 8, map, 16);
        o = at;
    }
    for (uint32_t r = 0; r < (uint32_t)jp_world_size; r++) {
        uint64_t msgs;
        memcpy(&msgs, full + l.matrix + (size_t)r * 16, 8);
        if (msgs) {
            memcpy(out + o, &r, 4);
            memcpy(out + o + 4, full + l.matrix + (size_t)r * 16, 16);
            o += 20;
        }
    }
    return o;
}

/* The whole snapshot from a compact one of `n` bytes into `full` (jp_snapshot_size() bytes): its size,
 * 0 if it is not one of this job's (another library, a cut or malformed message). */
static size_t jp_expand(const char *in, size_t n, char *full)
{
    const struct jp_header *h = (const struct jp_header *)in;
    if (n < sizeof *h + 4 || memcmp(h->magic, JP_SNAPSHOT_MAGIC, 8) != 0 || h->nfunc != JP_NFUNC
        || h->nbuckets != JP_BUCKETS || h->matrix_ranks != (uint64_t)jp_world_size || h->world_rank < 0
        || h->world_rank >= jp_world_size || h->world_rank == jp_world_rank) {
        return 0;
    }
    struct jp_layout l = jp_layout();
    memset(full, 0, l.size);
    memcpy(full, in, sizeof *h);
    for (int f = 0; f < JP_NFUNC; f++) {
        strncpy(full + l.names + (size_t)f * JP_NAME, jp_names[f], JP_NAME - 1);
    }
    size_t o = sizeof *h;
    for (;;) {
        uint32_t f;
        if (o + 4 > n) {
            return 0;
        }
        memcpy(&f, in + o, 4);
        o += 4;
        if (f == UINT32_MAX) {
            break;
        }
        if (f >= JP_NFUNC || o + 48 + JP_BUCKETS * 8 > n) {
            return 0;
        }
        memcpy(full + l.stats + (size_t)f * 48, in + o, 48);
        memcpy(full + l.timing + (size_t)f * 16, in + o, 8); /* every call timed, unless listed below */
        memcpy(full + l.hist + (size_t)f * JP_BUCKETS * 8, in + o + 48, JP_BUCKETS * 8);
        o += 48 + JP_BUCKETS * 8;
    }
    for (uint32_t i = 0; i < h->sampled; i++) {
        uint32_t f;
        if (o + 20 > n) {
            return 0;
        }
        memcpy(&f, in + o, 4);
        if (f >= JP_NFUNC) {
            return 0;
        }
        memcpy(full + l.timing + (size_t)f * 16, in + o + 4, 16);
        o += 20;
    }
    memset(full + offsetof(struct jp_header, sampled), 0, 4);
    struct jp_v3 v;
    if (o + sizeof v > n) {
        return 0;
    }
    memcpy(&v, in + o, sizeof v);
    if (v.ncbuckets != JP_CBUCKETS || v.ndetail > JP_NFUNC) {
        return 0;
    }
    memcpy(full + l.v3, &v, sizeof v);
    o += sizeof v;
    size_t v3 = sizeof v + (size_t)v.ndetail * JP_DETAIL;
    for (uint32_t i = 0; i < v.ndetail; i++) {
        char *rec = full + l.v3 + sizeof v + (size_t)i * JP_DETAIL;
        uint32_t words;
        uint64_t map[2];
        if (o + 24 > n) {
            return 0;
        }
        memcpy(rec, in + o, 4);
        memcpy(&words, in + o + 4, 4);
        memcpy(map, in + o + 8, 16);
        o += 24;
        if (words > JP_DETAIL_WORDS || o + 8 * (size_t)words > n
            || (unsigned)(__builtin_popcountll(map[0]) + __builtin_popcountll(map[1])) != words
            || (map[1] >> (JP_DETAIL_WORDS - 64)) != 0) {
            return 0;
        }
        for (unsigned w = 0; w < JP_DETAIL_WORDS; w++) {
            if (map[w / 64] & ((uint64_t)1 << (w % 64))) {
                memcpy(rec + 8 + 8 * (size_t)w, in + o, 8);
                o += 8;
            }
        }
    }
    while (o < n) {
        uint32_t r;
        if (o + 20 > n) {
            return 0;
        }
        memcpy(&r, in + o, 4);
        if (r >= (uint32_t)jp_world_size) {
            return 0;
        }
        memcpy(full + l.matrix + (size_t)r * 16, in + o + 4, 16);
        o += 20;
    }
    return l.v3 + v3;
}

/*
 * The figures of every rank of jp_own_comm (the world's processes, ranks as in the world) written by
 * its rank 0 alone: the other ranks send it their snapshots (state `state`, in the compact form above),
 * and it writes each as ranks/rank-R.bin, taking them in the order they come, with two buffers of
 * one snapshot's size (the size grows with the ranks only by the rank's matrix row). No rank but
 * rank 0 needs the output directory (PROFILE.md, "Where it is written"). Collective;
 * returns 1 when rank 0 took the figures (then no rank writes anything else), 0 when it cannot (it
 * has no output directory): then every rank writes its own, as before.
 */
int jp_gather_dumps(int state)
{
    /* a periodic dump of this rank's in flight would land after rank 0 has written its final one */
    jp_periodic_quiesce();
    /* agreed at MPI_Init (on jp_own_comm, so it exists): no collective here, a rank other than 0 sends
     * and goes on */
    if (!jp_rank0_collects) {
        return 0;
    }
    MPI_Comm c = jp_own_comm;
    int me = 0, n = 1;
    jp_mpi.comm_rank(c, &me);
    jp_mpi.comm_size(c, &n);
    fenv_t fp;
    fegetenv(&fp);
    size_t size = jp_snapshot_size();
    /* the compact form: at most the whole without the names, plus 4 bytes per function and rank
     * listed and the end mark */
    size_t cap = size + 4 * (size_t)JP_NFUNC + 4 * (size_t)(jp_world_size > 0 ? jp_world_size : 0) + 4;
    char *buf = cap <= INT_MAX ? jp_mem_alloc(size) : NULL;
    char *wire = buf ? jp_mem_alloc(cap) : NULL;
    if (me != 0) {
        /* an empty message if this rank has no figures to give (rank 0 then leaves its dump out,
         * and a merge names it); a few KiB: the library sends it eagerly, the wait is short */
        struct jp_membuf m = {buf, 0, buf ? size : 0};
        int have = wire && !jp_ended && jp_emit(jp_mem_sink, &m, state, 0) == 0;
        size_t len = have ? jp_compact(buf, wire) : 0;
        MPI_Request request;
        jp_own_wait(jp_mpi.isend(wire, (int)len, MPI_BYTE, 0, JP_GATHER_TAG, c, &request), &request);
    } else {
        jp_dump(state, 0);
        /* in the order they come: a rank whose core is busy delays no other */
        for (int i = 1; i < n; i++) {
            MPI_Status st;
            int found = 0, count = 0;
            int rc;
            while ((rc = jp_mpi.iprobe(MPI_ANY_SOURCE, JP_GATHER_TAG, c, &found, &st)) == MPI_SUCCESS && !found) {
                sched_yield();
            }
            if (rc != MPI_SUCCESS) {
                break; /* the ranks not heard from are left out, and a merge names them */
            }
            jp_mpi.get_count(&st, MPI_BYTE, &count);
            if (!wire || count < 0 || (size_t)count > cap) {
                jp_mpi.recv(NULL, 0, MPI_BYTE, st.MPI_SOURCE, JP_GATHER_TAG, c, MPI_STATUS_IGNORE); /* truncated: dropped */
                continue;
            }
            jp_mpi.recv(wire, count, MPI_BYTE, st.MPI_SOURCE, JP_GATHER_TAG, c, MPI_STATUS_IGNORE);
            size_t got = jp_expand(wire, (size_t)count, buf);
            if (!got) {
                continue;
            }
            char path[PATH_MAX + 64];
            snprintf(path, sizeof path, "%s/ranks/rank-%d.bin", jp_outdir, (int)((struct jp_header *)buf)->world_rank);
            struct jp_bytes bytes = {buf, got};
            jp_write_file(path, &bytes, state, 0);
        }
        /* rank 0's own finalize cost ends only now, after its dump: a file of its own (ranks/finalize-0.txt,
         * seconds from the start of MPI_Finalize to here), which the merge reads */
        if (jp_end_ticks && n > 1) {
            double rate = jp_tick_rate();
            char path[PATH_MAX + 64];
            char text[64];
            snprintf(path, sizeof path, "%s/ranks/finalize-0.txt", jp_outdir);
            int len = snprintf(text, sizeof text, "%.9g\n", rate > 0 ? (double)(jp_ticks() - jp_end_ticks) / rate : 0);
            struct jp_bytes bytes = {text, (size_t)len};
            jp_write_file(path, &bytes, state, 0);
        }
    }
    jp_mem_free(wire, cap);
    jp_mem_free(buf, size);
    fesetenv(&fp);
    return 1;
}

/* ---------------------------------------------------------------- call sites */

/* The lean path's calls from site entry e not yet moved into it (recorder.h, jp_fstat.mcalls), and
 * their bytes in *bytes: its function's, or for the rest's entry (`rest`) those of every function
 * whose site it is. */
static uint64_t jp_site_pending(const struct jp_thread *t, const struct jp_site *e, int rest, uint64_t *bytes)
{
    uint64_t n = 0;
    *bytes = 0;
    int from = 0, to = JP_NFUNC; /* the rest's: every function */
    if (!rest) {
        from = e->fid1 ? (int)e->fid1 - 1 : 0; /* (a free entry: none) */
        to = e->fid1 ? (int)e->fid1 : 0;
    }
    for (int fn = from; fn < to; fn++) {
        const struct jp_fstat *s = &t->f[fn];
        if (s->site == e) {
            n += s->calls - s->mcalls;
            *bytes += s->sent + s->recv - s->mbytes;
        }
    }
    return n;
}

/* one line of the sites' file: a thread's entry with calls, and its calls and bytes then */
struct jp_site_line {
    const struct jp_site *e;
    int rest;
    uint64_t calls, bytes;
};

/*
 * Every thread's call sites as text, one line per (thread, return address, function) (PROFILE.md,
 * "Call sites"): function, the module the address is in, the address's offset in it (what
 * addr2line takes: from the load address for a PIE executable or a shared library, the address
 * itself for a non-PIE executable), the address, the nearest dynamic symbol and the offset from it (the resolution without debug
 * information), calls, seconds, bytes. The addresses are named all at once (rec_sym.c: dladdr's
 * answers, each module's symbols read once, not once per site), or one by one with dladdr when
 * memory for that runs out. Not async-signal-safe (stdio): at MPI_Finalize only.
 */
static int jp_write_sites(const char *path)
{
    size_t n = 0;
    for (struct jp_thread *t = jp_threads; t; t = t->next) {
        n += t->sites ? JP_SITES + 1 : 0;
    }
    struct jp_site_line *lines = malloc((n ? n : 1) * sizeof *lines);
    uintptr_t *addr = malloc((n ? n : 1) * sizeof *addr);
    struct jp_sym *sym = malloc((n ? n : 1) * sizeof *sym);
    size_t m = 0;
    for (struct jp_thread *t = jp_threads; lines && t; t = t->next) {
        for (int i = 0; t->sites && i <= JP_SITES; i++) {
            const struct jp_site *e = &t->sites[i];
            uint64_t pending_bytes;
            uint64_t calls = e->calls + jp_site_pending(t, e, i == JP_SITES, &pending_bytes);
            if (calls != 0) {
                /* the return address is just after the call: the byte before it is in the calling line */
                if (addr) {
                    addr[m] = e->ra ? e->ra - 1 : 0;
                }
                lines[m++] = (struct jp_site_line){e, i == JP_SITES, calls, e->bytes + pending_bytes};
            }
        }
    }
    int named = lines && addr && sym && jp_sym_resolve(addr, m, sym) == 0;
    char tmp[PATH_MAX + 160];
    snprintf(tmp, sizeof tmp, "%.4150s.%ld.tmp", path, (long)getpid());
    int fd = !lines ? -1 : open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        if (fd >= 0) {
            close(fd);
        }
        free(lines);
        free(addr);
        free(sym);
        return -1;
    }
    double rate = jp_tick_rate();
    fprintf(f, "# function\tmodule\toffset\taddress\tsymbol\tcalls\tseconds\tbytes\n");
    for (size_t k = 0; k < m; k++) {
        const struct jp_site *e = lines[k].e;
        struct jp_sym one = {0};
        if (named) {
            one = sym[k];
        } else if (e->ra) {
            Dl_info info;
            memset(&info, 0, sizeof info);
            if (dladdr((void *)(e->ra - 1), &info) && info.dli_fname) {
                one = (struct jp_sym){1, info.dli_fname, (uintptr_t)info.dli_fbase, info.dli_sname,
                                      (uintptr_t)info.dli_saddr};
            }
        }
        int known = e->ra && one.known;
        /* the offset addr2line takes: from the load address in a PIE executable or a shared library
         * (so ASLR does not split a site), the address itself in a non-PIE executable */
        uintptr_t base = known ? one.base : 0;
        if (known && ((const ElfW(Ehdr) *)one.base)->e_type == ET_EXEC) {
            base = 0;
        }
        /* the main program's name as it was started (often relative): its path instead */
        const char *module = !known ? "?" : one.module[0] == '/' || !jp_exe[0] ? one.module : jp_exe;
        const char *fn = lines[k].rest || e->fid1 == 0 ? "(other sites)" : jp_names[e->fid1 - 1];
        fprintf(f, "%s\t%s\t0x%lx\t0x%lx\t", fn, module, (unsigned long)(e->ra - base), (unsigned long)e->ra);
        if (known && one.sname) {
            fprintf(f, "%s+0x%lx", one.sname, (unsigned long)(e->ra - one.saddr));
        } else {
            fputc('?', f);
        }
        fprintf(f, "\t%llu\t%.9g\t%llu\n", (unsigned long long)lines[k].calls, rate > 0 ? (double)e->ticks / rate : 0,
                (unsigned long long)lines[k].bytes);
    }
    free(lines);
    free(addr);
    free(sym);
    int ok = fclose(f) == 0;
    if (ok && rename(tmp, path) == 0) {
        return 0;
    }
    unlink(tmp);
    return -1;
}

/* At MPI_Finalize, unless JPMPI_PROFILE_SITES=off: this rank's sites into <output>/sites/rank-R.tsv. */
void jp_sites_at_finalize(void)
{
    if (!jp_sites_on || !jp_outdir[0]) {
        return;
    }
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/sites", jp_outdir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/sites/rank-%d.tsv", jp_outdir, jp_world_rank);
    fenv_t fp;
    fegetenv(&fp);
    if (jp_write_sites(path) != 0) {
        dprintf(STDERR_FILENO, "jpmpi (rank %d): profile: cannot write %s: %s\n", jp_world_rank, path, strerror(errno));
    }
    fesetenv(&fp);
}

/* ---------------------------------------------------------------- what the other levels call */

JP_EXPORT size_t jpmpi_profile_snapshot_size(void)
{
    return jp_snapshot_size();
}

/* Fills buf with the snapshot; returns its size, or 0 if cap is too small. */
JP_EXPORT size_t jpmpi_profile_snapshot(void *buf, size_t cap)
{
    struct jp_membuf m = {buf, 0, cap};
    int state = jp_end_ticks ? JP_FINALIZE : JP_FLUSH;
    fenv_t fp;
    fegetenv(&fp); /* the variances' conversion may raise the inexact flag: not on the application's thread */
    size_t n = jp_emit(jp_mem_sink, &m, state, 0) == 0 ? m.used : 0;
    fesetenv(&fp);
    return n;
}

JP_EXPORT const char *jpmpi_profile_output_dir(void)
{
    return jp_outdir;
}

/*
 * What the accounting level takes instead of the snapshot: the number of functions and, for the
 * first `max`, their names, calls and seconds summed over the threads; the application's seconds
 * (from the end of MPI_Init to the start of MPI_Finalize, or to now) and the wall clock when
 * MPI_Init returned (Unix ns, 0 before).
 */
JP_EXPORT int jpmpi_profile_totals(int max, const char **names, unsigned long long *calls, double *seconds,
                                   double *app_seconds, long long *init_unix_ns)
{
    double rate = jp_tick_rate();
    for (int f = 0; f < JP_NFUNC && f < max; f++) {
        uint64_t c = 0, t = 0;
        for (struct jp_thread *th = jp_threads; th; th = th->next) {
            c += th->f[f].calls;
            t += th->f[f].ticks;
        }
        names[f] = jp_names[f];
        calls[f] = c;
        seconds[f] = rate > 0 ? (double)t / rate : 0;
    }
    *app_seconds = rate > 0 ? (double)jp_app_ticks() / rate : 0;
    *init_unix_ns = jp_init_unix_ns;
    return JP_NFUNC;
}

/* The profile was written: nothing to dump at exit. */
JP_EXPORT void jpmpi_profile_written(void)
{
    jp_ended = 1;
}

