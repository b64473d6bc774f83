/*
 * accounting.c - the `accounting` tool, a C level (libjpmpi-accounting.so): one record per job,
 * schema jpmpi-accounting-1 (profilers/accounting/ACCOUNTING.md), appended at MPI_Finalize to the file
 * JPMPI_ACCOUNTING_FILE names, or sent to syslog. No JVM.
 *
 * This level defines MPI_Init, MPI_Init_thread and MPI_Finalize only, so no other call passes
 * through it. Where MPI's share of the time and the top functions come from:
 * - sampled (the tool alone, as `--tools accounting` lists it): the thread that called MPI_Init
 *   is sampled JPMPI_ACCOUNTING_SAMPLING times per second of wall time (mpisample.h: a stack walk
 *   finds the application's MPI call, if any): nothing is added to any MPI call;
 * - counted (the profile tool's recorder, libjpmpi-profile.so, listed above this level, as with
 *   `--tools profile,accounting`): every call counted and timed by the recorder.
 * The recorder and the hwc tool's level are found in the dispatcher's level table (they are
 * loaded RTLD_LOCAL, so by their handles, not by a global look-up).
 *
 * MPI_Init*: tells the recorder, if listed, that its profile output is not needed (no output
 * directory, no rank dumps), looks up what MPI_Finalize calls (the recorder's jpmpi_profile_totals
 * and, when the hwc tool is listed, its jpmpi_hwc_totals), once MPI is up duplicates
 * MPI_COMM_WORLD (errors returned) for MPI_Finalize (the ranks are together in MPI_Init anyway),
 * and starts the sampler when there is no recorder. MPI_Finalize stops it first.
 *
 * MPI_Finalize, before passing it on, on that communicator, straight to the MPI library (no level
 * sees them): two collectives, whose rounds are what a job with busy or
 * oversubscribed cores waits for, each waited for with sched_yield between polls. One MPI_Igather
 * to rank 0 of each rank's host hash and application time (nodes, the longest time), one
 * MPI_Ireduce of fixed-size sums; rank 0 writes the line. Every rank runs the same collectives
 * whatever it has (no figures: zeros), and nothing here fails the job: a problem is one line on
 * stderr, on rank 0 when it concerns the job.
 */
#define _GNU_SOURCE
#include "acctrecord.h"
#include "jobenv.h"
#include "jpmpi_settings.h"
#include "mpisample.h"

#include <mpi.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define ACCT_EXPORT __attribute__((visibility("default")))

static const char ACCT_RECORDER[] = "libjpmpi-profile.so";
static const char ACCT_HWC[] = "libjpmpi-hwc.so";
static const char ACCT_SYSLOG[] = "syslog";
static const char ACCT_UNIX[] = "unix:";
/* How long the collector may take to answer (it answers at once; a hung one must not hang the job). */
enum { ACCT_COLLECTOR_SECONDS = 10 };

typedef int (*level_count_fn)(void);
typedef const char *(*level_entry_fn)(int);
typedef const char *(*implementation_fn)(void);
typedef void (*profile_output_fn)(int);
typedef int (*profile_totals_fn)(int, const char **, unsigned long long *, double *, double *, long long *);
typedef int (*hwc_totals_fn)(int, char (*)[32], unsigned long long *, unsigned long long *, int *);

/* What MPI_Init found (looked up once). */
static struct {
    int looked;
    profile_totals_fn totals;
    hwc_totals_fn hwc;
    const char *mpi;
    int sampled;                /* no recorder listed: the sampler's figures */
    char why_no_totals[160];    /* a recorder without the export */
    char hwc_notice[160];       /* the hwc tool listed, but its totals cannot be taken */
} acct_found;

/* This rank's own clocks (both ways) and the sampler's state. */
static struct {
    long long init_unix_ns;     /* MPI_Init returned, CLOCK_REALTIME */
    struct timespec init;       /* the same, CLOCK_MONOTONIC */
    uint64_t wall_ns;           /* MPI_Init's return to MPI_Finalize */
    int sampling;               /* the sampler runs */
    int off;                    /* JPMPI_ACCOUNTING_SAMPLING=0: not sampled, by choice */
    char why_no_samples[200];   /* it could not start */
} acct_clock;

static int acct_rank = -1;

/* One line on stderr, in one write. */
static void acct_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void acct_say(const char *fmt, ...)
{
    char text[1024];
    int n = snprintf(text, sizeof text, "jpmpi (rank %d): accounting: ", acct_rank);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text + n, sizeof text - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(text);
    text[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, text, len);
    (void)w;
}

/* ---------------------------------------------------------------- the other levels */

/* The loaded level whose file is `file`, from the dispatcher's table (NULL if not listed); its
 * position (0: top) into *at. */
static void *acct_level(const char *file, int *at)
{
    level_count_fn count = (level_count_fn)dlsym(RTLD_DEFAULT, "jpmpi_level_count");
    level_entry_fn entry = (level_entry_fn)dlsym(RTLD_DEFAULT, "jpmpi_level_entry");
    for (int i = 0, n = count && entry ? count() : 0; i < n; i++) {
        const char *e = entry(i);
        if (!e) {
            continue;
        }
        char bare[PATH_MAX];
        const char *slash = strrchr(e, '/');
        const char *path = e;
        if (!slash && !strstr(e, ".so")) {
            snprintf(bare, sizeof bare, "lib%s.so", e); /* a bare name, as the dispatcher loads it */
            path = bare;
        }
        const char *base = strrchr(path, '/');
        if (strcmp(base ? base + 1 : path, file) == 0) {
            *at = i;
            return dlopen(path, RTLD_NOW | RTLD_NOLOAD);
        }
    }
    return NULL;
}

static void acct_find(void)
{
    if (acct_found.looked) {
        return;
    }
    acct_found.looked = 1;
    implementation_fn impl = (implementation_fn)dlsym(RTLD_DEFAULT, "jpmpi_implementation");
    acct_found.mpi = impl && impl()[0] ? impl() : NULL;
    /* This level's own file, as the dispatcher loaded it (a test build has another name). */
    Dl_info self;
    const char *mine = dladdr((void *)acct_find, &self) && self.dli_fname ? strrchr(self.dli_fname, '/') : NULL;
    int own = -1, at = -1;
    acct_level(mine ? mine + 1 : "libjpmpi-accounting.so", &own);
    void *recorder = acct_level(ACCT_RECORDER, &at);
    if (recorder && own >= 0 && at > own) {
        recorder = NULL; /* below this level it would record this level's own collectives: sampled */
    }
    if (!recorder) {
        acct_found.sampled = 1;
    } else {
        profile_output_fn output = (profile_output_fn)dlsym(recorder, "jpmpi_profile_output");
        if (output) {
            output(0);
        }
        acct_found.totals = (profile_totals_fn)dlsym(recorder, "jpmpi_profile_totals");
        if (!acct_found.totals) {
            snprintf(acct_found.why_no_totals, sizeof acct_found.why_no_totals,
                     "%s has no jpmpi_profile_totals (another build of jpmpi)", ACCT_RECORDER);
        }
    }
    void *hwc = acct_level(ACCT_HWC, &at);
    if (hwc) {
        acct_found.hwc = (hwc_totals_fn)dlsym(hwc, "jpmpi_hwc_totals");
        if (!acct_found.hwc) {
            snprintf(acct_found.hwc_notice, sizeof acct_found.hwc_notice,
                     "%s has no jpmpi_hwc_totals; no counters in the record", ACCT_HWC);
        }
    }
}

/*
 * The MPI library's own functions for this level's calls (jpmpi_resolve past the last level), so
 * that no other level, above or below, sees them: PMPI_X would reach the levels below this one
 * (a recorder listed there would count them). PMPI_X where there is no dispatcher to ask.
 */
static struct {
    int (*test)(MPI_Request *, int *, MPI_Status *);
    int (*comm_rank)(MPI_Comm, int *);
    int (*comm_size)(MPI_Comm, int *);
    int (*comm_idup)(MPI_Comm, MPI_Comm *, MPI_Request *);
    int (*comm_set_errhandler)(MPI_Comm, MPI_Errhandler);
    int (*igather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm, MPI_Request *);
    int (*ireduce)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm, MPI_Request *);
    int (*comm_split_type)(MPI_Comm, int, int, MPI_Info, MPI_Comm *);
    int (*comm_free)(MPI_Comm *);
} acct_mpi;

typedef void (*acct_fn)(void);
typedef acct_fn (*acct_resolve_fn)(int, const char *);

static void acct_bottom(void)
{
    level_count_fn count = (level_count_fn)dlsym(RTLD_DEFAULT, "jpmpi_level_count");
    acct_resolve_fn resolve = (acct_resolve_fn)dlsym(RTLD_DEFAULT, "jpmpi_resolve");
    int depth = count ? count() : 0;
    acct_fn f;
    f = resolve ? resolve(depth, "MPI_Test") : NULL;
    acct_mpi.test = f ? (int (*)(MPI_Request *, int *, MPI_Status *))f : PMPI_Test;
    f = resolve ? resolve(depth, "MPI_Comm_rank") : NULL;
    acct_mpi.comm_rank = f ? (int (*)(MPI_Comm, int *))f : PMPI_Comm_rank;
    f = resolve ? resolve(depth, "MPI_Comm_size") : NULL;
    acct_mpi.comm_size = f ? (int (*)(MPI_Comm, int *))f : PMPI_Comm_size;
    f = resolve ? resolve(depth, "MPI_Comm_idup") : NULL;
    acct_mpi.comm_idup = f ? (int (*)(MPI_Comm, MPI_Comm *, MPI_Request *))f : PMPI_Comm_idup;
    f = resolve ? resolve(depth, "MPI_Comm_set_errhandler") : NULL;
    acct_mpi.comm_set_errhandler = f ? (int (*)(MPI_Comm, MPI_Errhandler))f : PMPI_Comm_set_errhandler;
    f = resolve ? resolve(depth, "MPI_Igather") : NULL;
    acct_mpi.igather = f ? (int (*)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm,
                                    MPI_Request *))f
        : PMPI_Igather;
    f = resolve ? resolve(depth, "MPI_Ireduce") : NULL;
    acct_mpi.ireduce = f ? (int (*)(const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm, MPI_Request *))f
        : PMPI_Ireduce;
    f = resolve ? resolve(depth, "MPI_Comm_split_type") : NULL;
    acct_mpi.comm_split_type = f ? (int (*)(MPI_Comm, int, int, MPI_Info, MPI_Comm *))f : PMPI_Comm_split_type;
    f = resolve ? resolve(depth, "MPI_Comm_free") : NULL;
    acct_mpi.comm_free = f ? (int (*)(MPI_Comm *))f : PMPI_Comm_free;
}

/* ---------------------------------------------------------------- the record's texts (rank 0) */

/* Who ran the job: the kernel's word (the real uid), never the environment's, which the user
 * sets at will (USER=alice). A uid without a name is its number. */
static const char *acct_user(char *buf, size_t cap)
{
    struct passwd pw, *found = NULL;
    char tmp[4096];
    uid_t uid = getuid();
    if (getpwuid_r(uid, &pw, tmp, sizeof tmp, &found) == 0 && found && found->pw_name) {
        snprintf(buf, cap, "%s", found->pw_name);
    } else {
        snprintf(buf, cap, "%lu", (unsigned long)uid);
    }
    return buf;
}

/* The job id (jobenv.h), else host-pid-start of rank 0. */
static const char *acct_job(const char *host, int64_t start, char *buf, size_t cap)
{
    if (!jp_first_env(jp_job_variables, buf, cap)) {
        snprintf(buf, cap, "%s-%ld-%lld", host, (long)getpid(), (long long)start);
    }
    return buf;
}

/* ---------------------------------------------------------------- where the record goes */

/*
 * Sends the line (line end included) to the collector at the Unix socket `path` (`jpmpi accounting
 * collect`), which stamps it with the user the kernel names for this process and answers "ok" or
 * why not; 0, or -1 with the reason (the collector's answer, or what failed).
 */
static int acct_send(const char *path, const char *line, size_t len, char *why, size_t whylen)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr.sun_path) {
        snprintf(why, whylen, "the socket path is longer than %zu bytes", sizeof addr.sun_path - 1);
        return -1;
    }
    memcpy(addr.sun_path, path, strlen(path));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, whylen, "socket: %s", strerror(errno));
        return -1;
    }
    struct timeval limit = {.tv_sec = ACCT_COLLECTOR_SECONDS, .tv_usec = 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    int rc = -1;
    char answer[200];
    size_t got = 0;
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        snprintf(why, whylen, "no collector there: %s", strerror(errno));
        goto done;
    }
    for (size_t sent = 0; sent < len;) {
        ssize_t n = send(fd, line + sent, len - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            snprintf(why, whylen, "sending: %s", n < 0 ? strerror(errno) : "connection closed");
            goto done;
        }
        sent += (size_t)n;
    }
    while (got < sizeof answer - 1 && memchr(answer, '\n', got) == NULL) {
        ssize_t n = recv(fd, answer + got, sizeof answer - 1 - got, 0);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        got += (size_t)n;
    }
    answer[got] = '\0';
    answer[strcspn(answer, "\n")] = '\0';
    if (strcmp(answer, "ok") == 0) {
        rc = 0;
    } else {
        snprintf(why, whylen, "the collector said: %.160s", got ? answer : "nothing (timed out or went away)");
    }
done:
    close(fd);
    return rc;
}

/*
 * Appends the line (line end included) to `target`, a file, "syslog" or "unix:SOCKET" (acct_send);
 * 0, or -1 with the reason.
 * File: O_APPEND, so that the kernel puts each write at the end in one step, and one write(2) of
 * the whole line under an exclusive fcntl lock, which network filesystems honour across nodes
 * where their O_APPEND is only emulated (NFS) or needs their own locking (Lustre, GPFS).
 */
static int acct_append(const char *target, const char *line, size_t len, char *why, size_t whylen)
{
    if (len > ACCT_MAX_RECORD) {
        snprintf(why, whylen, "the record is %zu bytes, over %d", len, ACCT_MAX_RECORD);
        return -1;
    }
    if (strcmp(target, ACCT_SYSLOG) == 0) {
        syslog(LOG_USER | LOG_INFO, "jpmpi-accounting: %.*s", (int)(len - 1), line);
        return 0;
    }
    if (strncmp(target, ACCT_UNIX, sizeof ACCT_UNIX - 1) == 0) {
        return acct_send(target + sizeof ACCT_UNIX - 1, line, len, why, whylen);
    }
    int fd = open(target, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return -1;
    }
    struct flock lock;
    memset(&lock, 0, sizeof lock);
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    int rc;
    while ((rc = fcntl(fd, F_SETLKW, &lock)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
        snprintf(why, whylen, "cannot lock it: %s", strerror(errno));
        close(fd);
        return -1;
    }
    ssize_t n;
    while ((n = write(fd, line, len)) < 0 && errno == EINTR) {
    }
    int err = errno;
    lock.l_type = F_UNLCK;
    fcntl(fd, F_SETLK, &lock);
    if (n < 0) {
        snprintf(why, whylen, "%s", strerror(err));
    } else if ((size_t)n != len) {
        snprintf(why, whylen, "short write (%zd of %zu bytes)", n, len);
    }
    /* NFS may report a failed write only now. */
    if (close(fd) != 0 && n == (ssize_t)len) {
        snprintf(why, whylen, "%s", strerror(errno));
        return -1;
    }
    return n == (ssize_t)len ? 0 : -1;
}

/* ---------------------------------------------------------------- MPI_Finalize */

/*
 * Jobs of up to this many ranks send rank 0 their host's hash and application time in one
 * MPI_Gather (into a static buffer); larger ones count nodes with MPI_Comm_split_type and take the
 * longest time with an MPI_Reduce. (A test build lowers it, to run the second way.)
 */
#ifndef ACCT_GATHER_RANKS
#define ACCT_GATHER_RANKS 65536
#endif
/* Functions the sums have room for (the recorder has 381 for Open MPI 4.1, 626 for MPICH 4.0). */
#define ACCT_MAX_FUNCS 1024

/*
 * What every rank adds to the one MPI_Reduce, 64-bit integers, the same size on every rank whatever
 * it has (a rank without figures adds zeros): hashes of the function and counter names (each
 * rank's, so that rank 0 sees whether all agree), node leaders (large jobs), application and MPI
 * nanoseconds (sampled: the time the samples stand for), samples and ranks that could not sample,
 * per function calls (sampled: samples) and nanoseconds, per counter totals and the part in MPI.
 */
enum {
    S_SHAPE, S_HWC_SHAPE, S_LEADER, S_APP_NS, S_MPI_NS, S_SAMPLES, S_NO_SAMPLES,
    S_CALLS, S_NS = S_CALLS + ACCT_MAX_FUNCS, S_EV_TOTAL = S_NS + ACCT_MAX_FUNCS,
    S_EV_MPI = S_EV_TOTAL + ACCT_MAX_EVENTS, S_COUNT = S_EV_MPI + ACCT_MAX_EVENTS
};

/* Static: MPI_Finalize allocates nothing. */
static uint64_t acct_sum[S_COUNT], acct_total[S_COUNT];
static uint64_t acct_ranks[2 * ACCT_GATHER_RANKS]; /* rank 0: per rank, host hash and application ns */
static const char *acct_names[ACCT_MAX_FUNCS];
static unsigned long long acct_calls[ACCT_MAX_FUNCS];
static double acct_seconds[ACCT_MAX_FUNCS];
static char acct_event_names[ACCT_MAX_EVENTS][ACCT_EVENT_NAME];
static unsigned long long acct_ev_total[ACCT_MAX_EVENTS], acct_ev_mpi[ACCT_MAX_EVENTS];
static struct acct_event acct_events[ACCT_MAX_EVENTS];
static char acct_line_buf[65536];

/* This rank's figures, as rank 0 needs them for the texts of the record. */
static struct {
    int nfunc;                  /* -1: none */
    int nevents, hardware;
    long long init_unix_ns;
    uint64_t wall_ns;           /* this rank's application time, MPI_Init to MPI_Finalize */
    const char *problem;        /* why there are none */
} acct_mine;

/* A node's name, the same for the record's host and for counting nodes: Slurm's name for the node
 * (SLURMD_NODENAME, in every task of a step) where there is one, else the host name. */
static void acct_node_name(char *buf, size_t len)
{
    const char *slurm = getenv("SLURMD_NODENAME");
    if (slurm && *slurm) {
        snprintf(buf, len, "%s", slurm);
    } else {
        buf[0] = '\0';
        gethostname(buf, len - 1);
        buf[len - 1] = '\0';
    }
}

/* FNV-1a's starting value: acct_hash(ACCT_HASH_START, text) hashes one text. */
#define ACCT_HASH_START 1469598103934665603u

static uint64_t acct_hash(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    }
    return (h ^ 0xff) * 1099511628211u; /* the end of the text counts too */
}

static uint64_t acct_ns(double seconds)
{
    return seconds > 0 ? (uint64_t)(seconds * 1e9 + 0.5) : 0;
}

/* The sampler's figures (zeros if it could not start): samples in place of calls, the time they
 * stand for in place of seconds. */
static void acct_take_samples(void)
{
    /* The names from the dispatcher, so that a rank whose sampler did not start has them too. */
    level_count_fn count = (level_count_fn)dlsym(RTLD_DEFAULT, "jpmpi_function_count");
    level_entry_fn name = (level_entry_fn)dlsym(RTLD_DEFAULT, "jpmpi_function_name");
    int n = count && name ? count() : 0;
    if (n > ACCT_MAX_FUNCS) {
        acct_mine.problem = "the dispatcher has more functions than this level takes (another build of jpmpi)";
        return;
    }
    uint64_t period = acct_clock.sampling ? mps_period_ns() : 0;
    uint64_t shape = acct_hash(ACCT_HASH_START, "sampled");
    for (int f = 0; f < n; f++) {
        acct_names[f] = name(f);
        shape = acct_hash(shape, acct_names[f] ? acct_names[f] : "");
        uint64_t samples = acct_clock.sampling ? mps_function_samples(f) : 0;
        acct_sum[S_CALLS + f] = samples;
        acct_sum[S_NS + f] = samples * period;
    }
    acct_sum[S_SHAPE] = shape | 1;
    if (acct_clock.sampling) {
        acct_sum[S_SAMPLES] = mps_samples();
        acct_sum[S_APP_NS] = mps_samples() * period;
        acct_sum[S_MPI_NS] = mps_in_mpi() * period;
    } else if (!acct_clock.off) {
        acct_sum[S_NO_SAMPLES] = 1; /* it could not: said at MPI_Finalize (a rate of 0 is not said) */
    }
    acct_mine.nfunc = n;
    acct_mine.init_unix_ns = acct_clock.init_unix_ns;
    acct_mine.wall_ns = acct_clock.wall_ns;
}

/* Takes this rank's figures into acct_sum. */
static void acct_take(void)
{
    memset(acct_sum, 0, sizeof acct_sum);
    memset(&acct_mine, 0, sizeof acct_mine);
    acct_mine.nfunc = -1;
    acct_mine.problem = acct_found.why_no_totals[0] ? acct_found.why_no_totals : NULL;
    if (acct_found.sampled) {
        acct_take_samples();
    } else if (acct_found.totals) {
        double app = 0;
        int n = acct_found.totals(ACCT_MAX_FUNCS, acct_names, acct_calls, acct_seconds, &app, &acct_mine.init_unix_ns);
        if (n < 0 || n > ACCT_MAX_FUNCS) {
            acct_mine.problem = "the recorder has more functions than this level takes (another build of jpmpi)";
        } else {
            uint64_t shape = acct_hash(ACCT_HASH_START, "functions");
            for (int f = 0; f < n; f++) {
                shape = acct_hash(shape, acct_names[f] ? acct_names[f] : "");
                acct_sum[S_CALLS + f] = acct_calls[f];
                acct_sum[S_NS + f] = acct_ns(acct_seconds[f]);
                acct_sum[S_MPI_NS] += acct_sum[S_NS + f];
            }
            acct_sum[S_SHAPE] = shape | 1;
            acct_sum[S_APP_NS] = acct_ns(app);
            acct_mine.wall_ns = acct_sum[S_APP_NS];
            acct_mine.nfunc = n;
        }
    }
    if (acct_found.hwc) {
        memset(acct_event_names, 0, sizeof acct_event_names);
        int n = acct_found.hwc(ACCT_MAX_EVENTS, acct_event_names, acct_ev_total, acct_ev_mpi, &acct_mine.hardware);
        if (n < 0 || n > ACCT_MAX_EVENTS) {
            acct_say("jpmpi_hwc_totals returned %d; no counters from this rank", n);
            n = 0;
        }
        uint64_t shape = acct_hash(ACCT_HASH_START, acct_mine.hardware ? "hardware" : "software");
        for (int e = 0; e < n; e++) {
            acct_event_names[e][ACCT_EVENT_NAME - 1] = 0;
            shape = acct_hash(shape, acct_event_names[e]);
            acct_sum[S_EV_TOTAL + e] = acct_ev_total[e];
            acct_sum[S_EV_MPI + e] = acct_ev_mpi[e];
        }
        acct_sum[S_HWC_SHAPE] = shape | 1;
        acct_mine.nevents = n;
    }
}

static int acct_by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double acct_ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Rank 0: the record from the sums, appended to `target`. */
static void acct_write(const char *target, int size, int nodes, uint64_t wall_ns, const struct timespec *t0)
{
    if ((uint64_t)size * acct_sum[S_SHAPE] != acct_total[S_SHAPE]) {
        acct_say("the ranks do not have the same MPI functions (other builds of jpmpi, or counted on some ranks"
                 " and sampled on others); no record");
        return;
    }
    if (acct_found.sampled && acct_total[S_NO_SAMPLES] > 0) {
        if (acct_clock.why_no_samples[0]) {
            acct_say("%llu of %d ranks could not sample (rank 0: %s); MPI %% and top are from the others",
                     (unsigned long long)acct_total[S_NO_SAMPLES], size, acct_clock.why_no_samples);
        } else {
            acct_say("%llu of %d ranks could not sample (see their messages); MPI %% and top are from the others",
                     (unsigned long long)acct_total[S_NO_SAMPLES], size);
        }
    }
    int nev = acct_mine.nevents;
    int counters = acct_found.hwc && (uint64_t)size * acct_sum[S_HWC_SHAPE] == acct_total[S_HWC_SHAPE];
    if (acct_found.hwc && !counters) {
        acct_say("the ranks do not count the same events (other settings or machines); no counters in the record");
    }
    char host[256] = "", exe[PATH_MAX] = "", user[256], job[512];
    acct_node_name(host, sizeof host);
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    struct acct_record r;
    memset(&r, 0, sizeof r);
    r.has_start = 1;
    r.start = acct_mine.init_unix_ns / 1000000000;
    r.job = acct_job(host, r.start, job, sizeof job);
    const char *step = getenv("SLURM_STEP_ID"); /* the step of srun's tasks; a batch script's is "batch" */
    r.step = step && *step ? step : NULL;
    r.user = acct_user(user, sizeof user);
    r.exe = exe;
    r.host = host;
    r.mpi = acct_found.mpi;
    r.wall_s = (double)wall_ns / 1e9;
    r.ranks = size;
    r.nodes = nodes;
    r.core_h = size * r.wall_s / 3600;
    r.mpi_pct = acct_total[S_APP_NS] > 0 ? 100 * (double)acct_total[S_MPI_NS] / (double)acct_total[S_APP_NS] : 0;
    if (r.mpi_pct > 100) {
        r.mpi_pct = 100;
    }
    static double seconds[ACCT_MAX_FUNCS];
    for (int f = 0; f < acct_mine.nfunc; f++) {
        seconds[f] = (double)acct_total[S_NS + f] / 1e9;
    }
    r.ntop = acct_pick_top(acct_mine.nfunc, acct_names, seconds, acct_total + S_CALLS, r.top);
    r.samples = acct_found.sampled ? (int64_t)acct_total[S_SAMPLES] : -1;
    if (counters && nev > 0) {
        for (int e = 0; e < nev; e++) {
            memcpy(acct_events[e].name, acct_event_names[e], ACCT_EVENT_NAME);
            acct_events[e].total = acct_total[S_EV_TOTAL + e];
            acct_events[e].mpi = acct_total[S_EV_MPI + e];
        }
        r.has_hwc = 1;
        r.hardware = acct_mine.hardware;
        r.nevents = nev;
        r.events = acct_events;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    r.end = now.tv_sec;
    r.acct_ms = acct_ms_since(t0);
    int dropped;
    size_t len = acct_line(&r, acct_line_buf, sizeof acct_line_buf, &dropped);
    if (dropped) {
        acct_say("the record is too long with its counters; written without them");
    }
    char why[256] = "";
    if (len >= sizeof acct_line_buf) {
        snprintf(why, sizeof why, "the record is %zu bytes, over %d", len, ACCT_MAX_RECORD);
    }
    if (why[0] || acct_append(target, acct_line_buf, len, why, sizeof why) != 0) {
        acct_say("cannot append the record to %s (%s)", target, why);
    }
}

/*
 * Completes a nonblocking collective of the tool (rc: what starting it returned), giving the core
 * away between polls: where ranks outnumber cores (or other work shares them) a rank spinning in a
 * blocking call keeps the core from the rank it waits for, and every round costs a time slice; on
 * a core of its own, sched_yield returns at once.
 */
static int acct_wait(int rc, MPI_Request *request)
{
    int done = 0;
    while (rc == MPI_SUCCESS && !done) {
        rc = acct_mpi.test(request, &done, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && !done) {
            sched_yield();
        }
    }
    return rc;
}

/* ok, after a collective that returned rc: the first failure is said, the later ones only count. */
static int acct_ok(int ok, int rc, const char *what)
{
    if (ok && rc != MPI_SUCCESS) {
        acct_say("%s returned MPI error %d; no record", what, rc);
    }
    return ok && rc == MPI_SUCCESS;
}

/* Made at MPI_Init, where the ranks are together anyway; MPI_COMM_NULL if that failed. */
static MPI_Comm acct_comm = MPI_COMM_NULL;

/* JPMPI_ACCOUNTING_SAMPLING: samples per second (a bad value: said, and the default). */
static int acct_hz(void)
{
    const char *v = getenv(JPMPI_SETTING_ACCOUNTING_SAMPLING);
    if (!v || !*v) {
        return MPS_DEFAULT_HZ;
    }
    char *end;
    errno = 0;
    long hz = strtol(v, &end, 10);
    if (errno || *end || end == v || hz < 0 || hz > MPS_MAX_HZ) {
        if (acct_rank == 0) {
            acct_say("%s='%s' is not a rate from 0 to %d per second; sampling at %d", JPMPI_SETTING_ACCOUNTING_SAMPLING,
                     v, MPS_MAX_HZ, MPS_DEFAULT_HZ);
        }
        return MPS_DEFAULT_HZ;
    }
    return (int)hz;
}

static void acct_started(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    acct_clock.init_unix_ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
    clock_gettime(CLOCK_MONOTONIC, &acct_clock.init);
    acct_bottom();
    acct_mpi.comm_rank(MPI_COMM_WORLD, &acct_rank);
    MPI_Request request;
    if (acct_wait(acct_mpi.comm_idup(MPI_COMM_WORLD, &acct_comm, &request), &request) == MPI_SUCCESS) {
        acct_mpi.comm_set_errhandler(acct_comm, MPI_ERRORS_RETURN);
    } else {
        acct_comm = MPI_COMM_NULL;
    }
    if (acct_found.sampled) {
        int hz = acct_hz();
        if (hz == 0) {
            acct_clock.off = 1;
        } else if (mps_start(hz, acct_clock.why_no_samples, sizeof acct_clock.why_no_samples) == 0) {
            acct_clock.sampling = 1;
        } else if (acct_rank != 0) {
            acct_say("cannot sample: %s", acct_clock.why_no_samples); /* rank 0 says it at MPI_Finalize */
        }
    }
}

/* Stops the sampler and this rank's clock: the first thing MPI_Finalize does. */
static void acct_stopped(const struct timespec *t0)
{
    if (acct_clock.sampling) {
        mps_stop();
    }
    if (acct_clock.init.tv_sec || acct_clock.init.tv_nsec) {
        int64_t ns = (int64_t)(t0->tv_sec - acct_clock.init.tv_sec) * 1000000000
                     + (t0->tv_nsec - acct_clock.init.tv_nsec);
        acct_clock.wall_ns = ns > 0 ? (uint64_t)ns : 0;
    }
}

static void acct_finalize(const struct timespec *t0)
{
    acct_find();
    if (acct_comm == MPI_COMM_NULL) {
        PMPI_Comm_rank(MPI_COMM_WORLD, &acct_rank);
        if (acct_rank == 0) {
            acct_say("no duplicate of MPI_COMM_WORLD from MPI_Init; no record");
        }
        return;
    }
    int rank = 0, size = 1;
    acct_mpi.comm_rank(acct_comm, &rank);
    acct_mpi.comm_size(acct_comm, &size);
    acct_take();
    /* Nodes and the longest application time, then the sums: the same collectives on every rank. */
    int ok = 1, rc, nodes = 0;
    uint64_t wall_ns = 0;
    MPI_Request request;
    if (size <= ACCT_GATHER_RANKS) {
        uint64_t me[2] = {acct_hash(ACCT_HASH_START, ""), acct_mine.wall_ns};
        char host[256] = "";
        acct_node_name(host, sizeof host);
        me[0] = acct_hash(me[0], host);
        rc = acct_wait(acct_mpi.igather(me, 2, MPI_UINT64_T, acct_ranks, 2, MPI_UINT64_T, 0, acct_comm, &request),
                       &request);
        ok = acct_ok(ok, rc, "MPI_Igather");
        if (rank == 0 && ok) {
            for (int i = 0; i < size; i++) {
                wall_ns = acct_ranks[2 * i + 1] > wall_ns ? acct_ranks[2 * i + 1] : wall_ns;
                acct_ranks[i] = acct_ranks[2 * i];
            }
            qsort(acct_ranks, (size_t)size, sizeof acct_ranks[0], acct_by_value);
            for (int i = 0; i < size; i++) {
                nodes += i == 0 || acct_ranks[i] != acct_ranks[i - 1];
            }
        }
    } else {
        MPI_Comm node;
        int node_rank = 0;
        rc = acct_mpi.comm_split_type(acct_comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        ok = acct_ok(ok, rc, "MPI_Comm_split_type");
        if (rc == MPI_SUCCESS) {
            acct_mpi.comm_rank(node, &node_rank);
            acct_mpi.comm_free(&node);
        }
        acct_sum[S_LEADER] = node_rank == 0;
        rc = acct_wait(acct_mpi.ireduce(&acct_mine.wall_ns, &wall_ns, 1, MPI_UINT64_T, MPI_MAX, 0, acct_comm,
                                    &request), &request);
        ok = acct_ok(ok, rc, "MPI_Ireduce");
    }
    rc = acct_wait(acct_mpi.ireduce(acct_sum, acct_total, S_COUNT, MPI_UINT64_T, MPI_SUM, 0, acct_comm, &request),
                   &request);
    ok = acct_ok(ok, rc, "MPI_Ireduce");
    acct_mpi.comm_free(&acct_comm);
    if (rank != 0) {
        return;
    }
    if (size > ACCT_GATHER_RANKS) {
        nodes = (int)acct_total[S_LEADER];
    }
    /* Rank 0 decides: without a target or figures there is no record. */
    const char *target = getenv(JPMPI_SETTING_ACCOUNTING_FILE);
    if (acct_found.hwc_notice[0]) {
        acct_say("%s", acct_found.hwc_notice);
    }
    if (acct_mine.problem) {
        acct_say("%s; no record", acct_mine.problem);
    } else if (!target || !*target) {
        acct_say("%s is not set; no record", JPMPI_SETTING_ACCOUNTING_FILE);
    } else if (ok) {
        acct_write(target, size, nodes, wall_ns, t0);
    }
}

/* ---------------------------------------------------------------- the level's MPI functions */

/*
 * The level's own work at MPI_Init and MPI_Finalize (its percentages and rates, the sampler's
 * start and stop) under the application's floating-point environment, without leaving a status
 * flag the application would see as its own (fetestexcept, gfortran's note at STOP): the flags as
 * they were before, whatever the work raised. The MPI library's own flags stay, as without jpmpi.
 */
static void acct_own_fp(void (*work)(void))
{
    fenv_t app;
    feholdexcept(&app);
    work();
    fesetenv(&app);
}

ACCT_EXPORT int MPI_Init(int *argc, char ***argv)
{
    acct_find();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        acct_own_fp(acct_started);
    }
    return rc;
}

ACCT_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    acct_find();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        acct_own_fp(acct_started);
    }
    return rc;
}

static struct timespec acct_finalize_t0;

static void acct_finalizing(void)
{
    acct_stopped(&acct_finalize_t0);
    acct_finalize(&acct_finalize_t0);
}

ACCT_EXPORT int MPI_Finalize(void)
{
    clock_gettime(CLOCK_MONOTONIC, &acct_finalize_t0);
    acct_own_fp(acct_finalizing);
    return PMPI_Finalize();
}
