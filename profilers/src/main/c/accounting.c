/*
 * accounting.c - the `accounting` tool, a C level (libjpmpi-accounting.so): one record per job,
 * schema jpmpi-accounting-1 (profilers/ACCOUNTING.md), appended at MPI_Finalize to the file
 * JPMPI_ACCOUNTING_FILE names, or sent to syslog. No JVM.
 *
 * The profile tool's recorder (libjpmpi-profile.so), listed above this level, does the recording;
 * this level defines MPI_Init, MPI_Init_thread and MPI_Finalize only, so no other call passes
 * through it. Both are found in the dispatcher's level table (they are loaded RTLD_LOCAL, so by
 * their handles, not by a global look-up).
 *
 * MPI_Init*: tells the recorder that its profile output is not needed (no output directory, no
 * rank dumps) and looks up what MPI_Finalize calls: the recorder's jpmpi_profile_totals and, when
 * the hwc tool is listed, its jpmpi_hwc_totals.
 *
 * MPI_Finalize, before passing it on, on a duplicate of MPI_COMM_WORLD that returns errors, through
 * the levels below (the recorder does not see it): rank 0 broadcasts whether there will be a record
 * and its shapes (function count, counter names); the nodes are counted (one leader per
 * shared-memory communicator); the ranks reduce their sums and the longest application time to
 * rank 0; rank 0 writes the line. Every rank runs the same collectives whatever fails locally, and
 * nothing here fails the job: a problem is one line on stderr, on rank 0 when it concerns the job.
 */
#define _GNU_SOURCE
#include "acctrecord.h"
#include "jpmpi_settings.h"

#include <mpi.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define ACCT_EXPORT __attribute__((visibility("default")))

/* The snapshot reader refuses more functions than this too. */
#define ACCT_MAX_FUNCS 4096

static const char ACCT_RECORDER[] = "libjpmpi-profile.so";
static const char ACCT_HWC[] = "libjpmpi-hwc.so";
static const char ACCT_SYSLOG[] = "syslog";

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
    char why_no_totals[160];    /* no recorder, or one without the export */
    char hwc_notice[160];       /* the hwc tool listed, but its totals cannot be taken */
} acct_found;

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

/* The loaded level whose file is `file`, from the dispatcher's table (NULL if not listed). */
static void *acct_level(const char *file)
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
    void *recorder = acct_level(ACCT_RECORDER);
    if (!recorder) {
        snprintf(acct_found.why_no_totals, sizeof acct_found.why_no_totals, "%s is not in the entry list (use the launcher's"
                 " --tools accounting, or list it above this level)", ACCT_RECORDER);
    } else {
        profile_output_fn output = (profile_output_fn)dlsym(recorder, "jpmpi_profile_output");
        if (output) {
            output(0);
        }
        acct_found.totals = (profile_totals_fn)dlsym(recorder, "jpmpi_profile_totals");
        if (!acct_found.totals) {
            snprintf(acct_found.why_no_totals, sizeof acct_found.why_no_totals, "%s has no jpmpi_profile_totals (another"
                     " build of jpmpi)", ACCT_RECORDER);
        }
    }
    void *hwc = acct_level(ACCT_HWC);
    if (hwc) {
        acct_found.hwc = (hwc_totals_fn)dlsym(hwc, "jpmpi_hwc_totals");
        if (!acct_found.hwc) {
            snprintf(acct_found.hwc_notice, sizeof acct_found.hwc_notice, "%s has no jpmpi_hwc_totals; no counters in the"
                     " record", ACCT_HWC);
        }
    }
}

/* ---------------------------------------------------------------- the record's texts (rank 0) */

/* The first of `names` set to something other than blanks, trimmed into buf; NULL if none. */
static const char *acct_env(const char *const *names, char *buf, size_t cap)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (!v) {
            continue;
        }
        while (*v && (unsigned char)*v <= ' ') {
            v++;
        }
        size_t n = strlen(v);
        while (n > 0 && (unsigned char)v[n - 1] <= ' ') {
            n--;
        }
        if (n > 0) {
            snprintf(buf, cap, "%.*s", (int)n, v);
            return buf;
        }
    }
    return NULL;
}

static const char *acct_user(char *buf, size_t cap)
{
    static const char *const vars[] = {"USER", "LOGNAME", NULL};
    if (acct_env(vars, buf, cap)) {
        return buf;
    }
    struct passwd pw, *found = NULL;
    char tmp[4096];
    if (getpwuid_r(getuid(), &pw, tmp, sizeof tmp, &found) == 0 && found && found->pw_name) {
        snprintf(buf, cap, "%s", found->pw_name);
        return buf;
    }
    return "?";
}

/* Batch systems first, then the MPI launchers' own job ids, else host-pid-start of rank 0. */
static const char *acct_job(const char *host, int64_t start, char *buf, size_t cap)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "OMPI_MCA_orte_ess_jobid",
                                       "OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE", "PMI_KVSNAME", NULL};
    if (!acct_env(vars, buf, cap)) {
        snprintf(buf, cap, "%s-%ld-%lld", host, (long)getpid(), (long long)start);
    }
    return buf;
}

/* ---------------------------------------------------------------- where the record goes */

/*
 * Appends the line (line end included) to `target`, a file or "syslog"; 0, or -1 with the reason.
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

/* What rank 0 broadcasts first: whether there will be a record, and the shapes of the reductions. */
struct acct_head {
    int32_t go, nfunc, nevents, hardware;
    char events[ACCT_MAX_EVENTS][ACCT_EVENT_NAME];
};

/* This rank's figures, then the sums; static: MPI_Finalize allocates nothing. */
static const char *acct_names[ACCT_MAX_FUNCS];
static unsigned long long acct_calls[ACCT_MAX_FUNCS];
static double acct_seconds[ACCT_MAX_FUNCS];
/* seconds: application, MPI, then per function; counts: node leader, per function calls, counters total, in MPI */
static double acct_sec[2 + ACCT_MAX_FUNCS], acct_sec_sum[2 + ACCT_MAX_FUNCS];
static uint64_t acct_cnt[1 + ACCT_MAX_FUNCS + 2 * ACCT_MAX_EVENTS], acct_cnt_sum[1 + ACCT_MAX_FUNCS + 2 * ACCT_MAX_EVENTS];
static struct acct_head acct_head;
static struct acct_event acct_events[ACCT_MAX_EVENTS];
static char acct_line_buf[65536];

static double acct_ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Rank 0: the record from the sums, appended. */
static void acct_write(const char *target, int size, double wall, long long init_unix_ns,
                       const struct timespec *t0)
{
    int nfunc = acct_head.nfunc, nev = acct_head.nevents;
    char host[256] = "", exe[PATH_MAX] = "", user[256], job[512];
    gethostname(host, sizeof host - 1);
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    struct acct_record r;
    memset(&r, 0, sizeof r);
    r.has_start = 1;
    r.start = init_unix_ns / 1000000000;
    r.job = acct_job(host, r.start, job, sizeof job);
    r.user = acct_user(user, sizeof user);
    r.exe = exe;
    r.host = host;
    r.mpi = acct_found.mpi;
    r.wall_s = wall;
    r.ranks = size;
    r.nodes = (int)acct_cnt_sum[0];
    r.core_h = size * wall / 3600;
    r.mpi_pct = acct_sec_sum[0] > 0 ? 100 * acct_sec_sum[1] / acct_sec_sum[0] : 0;
    if (r.mpi_pct > 100) {
        r.mpi_pct = 100;
    }
    r.ntop = acct_pick_top(nfunc, acct_names, acct_sec_sum + 2, acct_cnt_sum + 1, r.top);
    if (nev > 0) {
        for (int e = 0; e < nev; e++) {
            memcpy(acct_events[e].name, acct_head.events[e], ACCT_EVENT_NAME);
            acct_events[e].name[ACCT_EVENT_NAME - 1] = 0;
            acct_events[e].total = acct_cnt_sum[1 + nfunc + e];
            acct_events[e].mpi = acct_cnt_sum[1 + nfunc + nev + e];
        }
        r.has_hwc = 1;
        r.hardware = acct_head.hardware;
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

/* ok, after a collective that returned rc: the first failure is said, the later ones only count. */
static int acct_ok(int ok, int rc, const char *what)
{
    if (ok && rc != MPI_SUCCESS) {
        acct_say("%s returned MPI error %d; no record", what, rc);
    }
    return ok && rc == MPI_SUCCESS;
}

static void acct_finalize(const struct timespec *t0)
{
    acct_find();
    PMPI_Comm_rank(MPI_COMM_WORLD, &acct_rank);
    MPI_Comm comm;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS) {
        acct_say("cannot duplicate MPI_COMM_WORLD; no record");
        return;
    }
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);

    /* This rank's figures. */
    int nfunc = -1;
    double app = 0, mpi = 0;
    long long init_unix_ns = 0;
    const char *problem = acct_found.why_no_totals[0] ? acct_found.why_no_totals : NULL;
    if (acct_found.totals) {
        nfunc = acct_found.totals(ACCT_MAX_FUNCS, acct_names, acct_calls, acct_seconds, &app, &init_unix_ns);
        if (nfunc < 0 || nfunc > ACCT_MAX_FUNCS) {
            problem = "the recorder's totals are unusable";
            nfunc = -1;
        }
    }
    for (int f = 0; f < nfunc; f++) {
        mpi += acct_seconds[f];
    }
    int nev = 0, hardware = 0;
    char names[ACCT_MAX_EVENTS][ACCT_EVENT_NAME];
    unsigned long long total[ACCT_MAX_EVENTS] = {0}, in_mpi[ACCT_MAX_EVENTS] = {0};
    memset(names, 0, sizeof names);
    if (acct_found.hwc) {
        nev = acct_found.hwc(ACCT_MAX_EVENTS, names, total, in_mpi, &hardware);
        if (nev < 0 || nev > ACCT_MAX_EVENTS) {
            if (rank == 0) {
                acct_say("jpmpi_hwc_totals returned %d; no counters in the record", nev);
            }
            nev = 0;
        }
    }

    /* Rank 0 decides: without a target or figures there is no record. */
    const char *target = getenv(JPMPI_SETTING_ACCOUNTING_FILE);
    if (rank == 0) {
        memset(&acct_head, 0, sizeof acct_head);
        acct_head.go = target && *target && nfunc >= 0;
        acct_head.nfunc = nfunc;
        acct_head.nevents = nev;
        acct_head.hardware = hardware;
        memcpy(acct_head.events, names, sizeof names);
        if (problem) {
            acct_say("%s; no record", problem);
        } else if (!target || !*target) {
            acct_say("%s is not set; no record", JPMPI_SETTING_ACCOUNTING_FILE);
        }
        if (acct_found.hwc_notice[0]) {
            acct_say("%s", acct_found.hwc_notice);
        }
    }
    int ok = acct_ok(1, PMPI_Bcast(&acct_head, (int)sizeof acct_head, MPI_BYTE, 0, comm), "MPI_Bcast");
    if (ok && acct_head.go && acct_head.nfunc >= 0 && acct_head.nfunc <= ACCT_MAX_FUNCS
        && acct_head.nevents >= 0 && acct_head.nevents <= ACCT_MAX_EVENTS) {
        int nf = acct_head.nfunc, ne = acct_head.nevents;
        /* A rank of another shape (another build) contributes nothing. */
        int mine = nfunc == nf;
        int counters = nev == ne && memcmp(names, acct_head.events, sizeof names) == 0;
        memset(acct_sec, 0, sizeof acct_sec);
        memset(acct_cnt, 0, sizeof acct_cnt);
        if (mine) {
            acct_sec[0] = app;
            acct_sec[1] = mpi;
            for (int f = 0; f < nf; f++) {
                acct_sec[2 + f] = acct_seconds[f];
                acct_cnt[1 + f] = acct_calls[f];
            }
        }
        for (int e = 0; counters && e < ne; e++) {
            acct_cnt[1 + nf + e] = total[e];
            acct_cnt[1 + nf + ne + e] = in_mpi[e];
        }
        MPI_Comm node;
        int node_rank = 0;
        int rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        ok = acct_ok(ok, rc, "MPI_Comm_split_type");
        if (rc == MPI_SUCCESS) {
            PMPI_Comm_rank(node, &node_rank);
            PMPI_Comm_free(&node);
        }
        acct_cnt[0] = node_rank == 0;
        double wall = 0;
        rc = PMPI_Reduce(acct_sec, acct_sec_sum, 2 + nf, MPI_DOUBLE, MPI_SUM, 0, comm);
        ok = acct_ok(ok, rc, "MPI_Reduce");
        rc = PMPI_Reduce(&acct_sec[0], &wall, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        ok = acct_ok(ok, rc, "MPI_Reduce");
        rc = PMPI_Reduce(acct_cnt, acct_cnt_sum, 1 + nf + 2 * ne, MPI_UINT64_T, MPI_SUM, 0, comm);
        ok = acct_ok(ok, rc, "MPI_Reduce");
        if (rank == 0 && ok) {
            acct_write(target, size, wall, init_unix_ns, t0);
        }
    }
    PMPI_Comm_free(&comm);
}

/* ---------------------------------------------------------------- the level's MPI functions */

ACCT_EXPORT int MPI_Init(int *argc, char ***argv)
{
    acct_find();
    return PMPI_Init(argc, argv);
}

ACCT_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    acct_find();
    return PMPI_Init_thread(argc, argv, required, provided);
}

ACCT_EXPORT int MPI_Finalize(void)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    acct_finalize(&t0);
    return PMPI_Finalize();
}
