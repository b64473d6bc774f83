/*
 * recorder.c - the core of the hand-written half of the `profile` tool's C level: thread blocks,
 * datatype sizes, the job's state, start-up, abnormal ends and the lifecycle wrappers (MPI_Init*,
 * MPI_Finalize, MPI_Abort, MPI_Pcontrol). The byte/matrix semantics of the families of MPI calls
 * are in rec_comm.c (world ranks, point-to-point, one-sided), rec_requests.c (requests) and
 * rec_colls.c (collectives); the snapshot, the rank dump and what the other levels call are in
 * rec_snapshot.c. The per-function wrappers are generated (jpmpi_profile.c).
 */
#define _GNU_SOURCE
#include "recorder_private.h"
#include "jobenv.h"
#include "jpmpi_settings.h"

#include <dlfcn.h>
#include <errno.h>
#include <fenv.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

__thread struct jp_thread *jp_self __attribute__((tls_model("initial-exec")));
volatile int jp_on = 1;

struct jp_thread *volatile jp_threads;
int jp_world_rank = -1;
int jp_world_size;
uint64_t jp_type_epoch = 1;

/* Lifecycle (the states are in recorder_private.h). */
volatile int jp_ended;           /* a final state was reached: no further dumps */
volatile int jp_initialized;
uint64_t jp_init_ticks;          /* end of MPI_Init */
uint64_t jp_end_ticks;           /* start of MPI_Finalize (0: still running) */
uint64_t jp_start_ticks;         /* the recorder's own start inside MPI_Init, in ticks */
static uint64_t jp_start_begin;  /* when it began */
int64_t jp_init_unix_ns;
struct timespec jp_init_mono;
double jp_per_call_ns;
char jp_outdir[PATH_MAX];
char jp_dump_path[PATH_MAX + 64];
char jp_host[64];
char jp_exe[256];
char jp_jobid[64];
char jp_step[8]; /* the job step (SLURM_STEP_ID) where it fits; profile.json's job.step */

/* ---------------------------------------------------------------- threads */

/* The dispatcher's caller word (jpmpi.h), if this dispatcher has one; else every call's site is unknown. */
typedef void *const *(*jp_caller_word_t)(void);
static jp_caller_word_t jp_caller_word;
static void *const jp_no_caller = NULL;


struct jp_thread *jp_thread_new(void)
{
    /* pages of the recorder's own (never freed; page-aligned, so every function's line is too): they
     * stay untouched, not resident, until a function's figures are first written (most never are) */
    struct jp_thread *t = jp_mem_alloc(sizeof(struct jp_thread));
    if (!t) {
        fputs("jpmpi profile: out of memory for a thread's counters; this thread is not recorded\n", stderr);
        abort();
    }
    t->caller = jp_caller_word && jp_sites_on ? jp_caller_word() : &jp_no_caller;
    if (!t->caller) {
        t->caller = &jp_no_caller;
    }
    t->rng = ((uint64_t)(uintptr_t)t ^ jp_ticks() * 0x9e3779b97f4a7c15u) | 1;
    if (jp_sites_on) {
        t->sites = jp_mem_alloc((JP_SITES + 1) * sizeof *t->sites);
        if (!t->sites) {
            fputs("jpmpi profile: out of memory for a thread's call sites; this thread's are not kept\n", stderr);
        }
    }
    struct jp_thread *head;
    do {
        head = jp_threads;
        t->next = head;
    } while (!__atomic_compare_exchange_n(&jp_threads, &head, t, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    jp_self = t;
    return t;
}

/* ---------------------------------------------------------------- sampled timing */

/*
 * Calls too short to time honestly (PROFILE.md, "Sampled timing"). Every JP_WINDOW timed calls of a
 * function on a thread, jp_adapt looks at their mean duration: timing a call costs about two clock
 * reads (jp_clock_ticks, measured when the library is loaded), four times that for a function with a
 * lean path, and that cost must stay under 1 % of the function's own time (the timed calls' mean less
 * the one clock read each interval holds), so 1 call in n is timed with n = 100 x cost / own mean
 * (every call when n comes out below 2; at most JP_N_MAX). The calls between two timed ones are a random stride
 * (uniform over 1 .. 2n - 1, mean n, from a per-thread xorshift generator), so a program's own period
 * cannot fall in step with it; each timed call then stands for n calls (Horvitz-Thompson: ticks +=
 * n d), and the estimate's variance adds (n^2 - n) d^2. Counts, bytes and size buckets stay exact:
 * only the clock reads are skipped. JPMPI_PROFILE_TIMING=all times every call.
 */
#define JP_N_MAX 1024
uint64_t jp_clock_ticks = 64; /* two clock reads back to back (a guess until measured) */
static int jp_sampling = 1;   /* 0: JPMPI_PROFILE_TIMING=all */
int jp_sites_on;              /* unless JPMPI_PROFILE_SITES=off: call sites kept and written */

__attribute__((constructor)) static void jp_timing_setup(void)
{
    const char *timing = getenv(JPMPI_SETTING_PROFILE_TIMING);
    if (timing && strcmp(timing, "all") == 0) {
        jp_sampling = 0;
    } else if (timing && *timing && strcmp(timing, "auto") != 0) {
        dprintf(STDERR_FILENO, "jpmpi profile: %s=%s is neither auto nor all; using auto\n",
                JPMPI_SETTING_PROFILE_TIMING, timing);
    }
    /* the cheapest of a few tries: a try that a preemption or an interrupt lengthened says nothing */
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 256; i++) {
        uint64_t a = jp_ticks();
        __asm__ __volatile__("" : : "r"(jp_ticks()) : "memory");
        uint64_t c = jp_ticks();
        if (c - a < best && c > a) {
            best = c - a;
        }
    }
    if (best != UINT64_MAX && best > 0) {
        jp_clock_ticks = best;
    }
    jp_caller_word = (jp_caller_word_t)(void (*)(void))dlsym(RTLD_DEFAULT, "jpmpi_caller_word");
    const char *sites = getenv(JPMPI_SETTING_PROFILE_SITES);
    jp_sites_on = !sites || strcmp(sites, "off") != 0;
    if (sites && *sites && strcmp(sites, "on") != 0 && strcmp(sites, "off") != 0) {
        dprintf(STDERR_FILENO, "jpmpi profile: %s=%s is neither on nor off; using on\n", JPMPI_SETTING_PROFILE_SITES,
                sites);
    }
}

static uint16_t jp_stride(struct jp_thread *t, uint32_t n)
{
    uint64_t x = t->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    t->rng = x;
    return (uint16_t)(1 + (((x >> 32) * (2 * (uint64_t)n - 1)) >> 32));
}

uint64_t jp_sampled(struct jp_thread *t, struct jp_fstat *s, uint64_t d)
{
    uint64_t n = s->n;
    t->var[s - t->f] += (unsigned __int128)((n * n - n) * d) * d;
    s->skip = (uint16_t)(jp_stride(t, (uint32_t)n) - 1);
    return d * n;
}

/* ---------------------------------------------------------------- call sites */

struct jp_site *jp_site_miss(struct jp_thread *t, uintptr_t ra, int id)
{
    unsigned h = jp_site_hash(ra, id);
    for (unsigned i = 0; i < 32; i++) {
        struct jp_site *e = &t->sites[(h + i) & (JP_SITES - 1)];
        if (e->fid1 == (uint32_t)id + 1 && e->ra == ra) {
            return e;
        }
        if (e->fid1 == 0) {
            e->ra = ra;
            e->fid1 = (uint32_t)id + 1;
            return e;
        }
    }
    return &t->sites[JP_SITES]; /* 32 taken in a row: the rest (its fid1 stays 0) */
}

void jp_adapt(struct jp_thread *t, struct jp_fstat *s)
{
    uint64_t sum = s->wticks;
    s->wticks = 0;
    if (!jp_sampling) {
        return;
    }
    /* what timing a call costs over not timing it, in units of jp_clock_ticks: about one for a function
     * without a lean path (its two reads); about four for one with (a timed call leaves the tail call
     * for the framed wrapper and back, and pays the branches that switch: benchmarks/README.md, the
     * twelfth session) */
    uint64_t cost = jp_recalls[s - t->f] ? 4 : 1;
    /* the calls' own time: a timed interval also holds about one clock read (half of jp_clock_ticks,
     * which spans two), most of what a call of a few nanoseconds measures */
    uint64_t clock_part = jp_clock_ticks / 2 * JP_WINDOW;
    uint64_t own = sum > clock_part ? sum - clock_part : 0;
    uint64_t n = own ? (100 * cost * jp_clock_ticks * JP_WINDOW + own - 1) / own : JP_N_MAX;
    n = n < 2 ? 1 : n > JP_N_MAX ? JP_N_MAX : n;
    if (n > 1 && s->n <= 1) {
        s->n = (uint16_t)n;
        s->skip = (uint16_t)(jp_stride(t, (uint32_t)n) - 1);
    } else if (n <= 1) {
        s->n = 1;
        s->skip = 0;
    } else {
        s->n = (uint16_t)n;
    }
}

/* ---------------------------------------------------------------- datatype sizes */

int64_t jp_tsize_miss(struct jp_thread *th, MPI_Datatype t, unsigned slot)
{
    if (t == MPI_DATATYPE_NULL) {
        return 0;
    }
    uint64_t epoch = __atomic_load_n(&jp_type_epoch, __ATOMIC_RELAXED);
    MPI_Count size = 0;
    if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS || size < 0) {
        size = 0;
    }
    th->tcache[slot].key = (uintptr_t)t;
    th->tcache[slot].size = (int64_t)size;
    th->tcache[slot].epoch = epoch;
    return (int64_t)size;
}

void jp_type_freed(void)
{
    __atomic_add_fetch(&jp_type_epoch, 1, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------- start-up and abnormal ends */

static struct sigaction jp_old[3];
static const int jp_signals[3] = {SIGTERM, SIGINT, SIGHUP};
/* A crash: the figures are written, then the signal goes on to the handler that was there before
 * (the program's, the MPI library's, gfortran's) or to the default action, as without jpmpi. */
static struct sigaction jp_crash_old[5];
static const int jp_crash_signals[5] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

static void jp_dump_once(int sig)
{
    if (!jp_ended) {
        jp_ended = 1;
        jp_dump(JP_SIGNAL, sig);
    }
}

static void jp_on_signal(int sig)
{
    jp_dump_once(sig);
    for (int i = 0; i < 3; i++) {
        if (jp_signals[i] == sig) {
            sigaction(sig, &jp_old[i], NULL);
        }
    }
    raise(sig);
}

/*
 * SIGUSR1 (unless ignored): the rank's figures so far, state FLUSH, and the job goes on (Slurm's
 * --signal=USR1@N before a time limit, kill -USR1 of a hung job's ranks; jpmpi report merges the
 * dumps into a partial profile). A handler that was there at MPI_Init (the program's, or MPICH's,
 * which takes SIGUSR1 for its own fault notices) runs right after, as without jpmpi; the default
 * action (ending the process) does not. The thread it interrupts may be inside a recorded call:
 * the dump takes no lock and keeps its figures consistent (jp_emit).
 */
static struct sigaction jp_flush_old;
static int jp_flush_installed;

/* Recording has ended: SIGUSR1 does again what it did before (a program's own default action). */
static void jp_flush_signal_done(void)
{
    if (jp_flush_installed) {
        jp_flush_installed = 0;
        sigaction(SIGUSR1, &jp_flush_old, NULL);
    }
}

static void jp_on_flush_signal(int sig, siginfo_t *info, void *context)
{
    int saved = errno;
    if (jp_initialized && !jp_ended) {
        jp_dump(JP_FLUSH, 0);
    }
    errno = saved;
    if (jp_flush_old.sa_flags & SA_SIGINFO) {
        if (jp_flush_old.sa_sigaction) {
            jp_flush_old.sa_sigaction(sig, info, context);
        }
    } else if (jp_flush_old.sa_handler != SIG_DFL && jp_flush_old.sa_handler != SIG_IGN) {
        jp_flush_old.sa_handler(sig);
    }
}

static void jp_on_crash(int sig, siginfo_t *info, void *context)
{
    (void)context;
    jp_dump_once(sig);
    for (int i = 0; i < 5; i++) {
        if (jp_crash_signals[i] == sig) {
            sigaction(sig, &jp_crash_old[i], NULL);
        }
    }
    if (info == NULL || info->si_code <= 0) {
        raise(sig); /* sent by kill(), raise() or abort(): delivered again once this returns */
    }
    /* else a fault: returning runs the faulting instruction again, and it reaches that handler */
}

static void jp_at_exit(void)
{
    if (jp_initialized && !jp_ended) {
        jp_ended = 1;
        jp_dump(JP_EXIT, 0);
    }
}

/* The output directory: JPMPI_OUTPUT_DIR, else jpmpi-<job> in the working directory (rank 0 of
 * `all`, the world's processes, names it). */
static void jp_choose_outdir(MPI_Comm all)
{
    const char *env = getenv(JPMPI_SETTING_OUTPUT_DIR);
    char name[PATH_MAX];
    memset(name, 0, sizeof name);
    if (env && *env) {
        snprintf(name, sizeof name, "%s", env);
    } else if (jp_world_rank == 0) {
        if (jp_jobid[0]) {
            snprintf(name, sizeof name, "jpmpi-%s", jp_jobid);
        } else {
            time_t now = time(NULL);
            struct tm tm;
            gmtime_r(&now, &tm);
            snprintf(name, sizeof name, "jpmpi-%04d%02d%02d-%02d%02d%02d-%d", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid());
        }
        for (char *p = name; *p; p++) {
            if (*p == '/' || *p == ' ') {
                *p = '_';
            }
        }
    }
    if (!(env && *env)) {
        /* Every rank must agree: rank 0 broadcasts the name it chose */
        jp_own_bcast(name, (int)sizeof name, MPI_CHAR);
    }
    name[sizeof name - 1] = 0;
    /*
     * A job started by MPI_Comm_spawn (or _multiple) would write its parent's directory and replace
     * its profile: it gets one of its own inside it, spawned-<host>-<pid of its rank 0>, which its
     * rank 0 names and broadcasts (nothing of the application's is in flight yet).
     */
    MPI_Comm parent = MPI_COMM_NULL;
    if (all == MPI_COMM_WORLD && PMPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent != MPI_COMM_NULL) {
        char sub[128];
        snprintf(sub, sizeof sub, "spawned-%.60s-%ld", jp_host, (long)getpid());
        jp_own_bcast(sub, (int)sizeof sub, MPI_CHAR);
        sub[sizeof sub - 1] = 0;
        for (char *p = sub; *p; p++) {
            if (*p == '/' || *p == ' ') {
                *p = '_';
            }
        }
        size_t used = strlen(name);
        snprintf(name + used, sizeof name - used, "/%s", sub);
    }
    if (name[0] != '/') {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd)) {
            snprintf(jp_outdir, sizeof jp_outdir, "%.2048s/%.2000s", cwd, name);
        } else {
            snprintf(jp_outdir, sizeof jp_outdir, "%s", name);
        }
    } else {
        snprintf(jp_outdir, sizeof jp_outdir, "%s", name);
    }
}

/* What one recorded call costs the recorder itself: a loop of the same steps. */
static void jp_measure_cost(void)
{
    struct jp_thread *t = jp_self ? jp_self : jp_thread_new();
    struct jp_fstat scratch = {0};
    fenv_t fp;
    fegetenv(&fp); /* the division below must leave no flag on the application's thread */
    enum { N = 20000 }; /* ~0.4 ms of MPI_Init at ~18 ns a step; the mean settles well before */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < N; i++) {
        uint64_t t0 = jp_ticks();
        __asm__ __volatile__("" ::: "memory");
        uint64_t d = jp_ticks() - t0;
        scratch.calls++;
        scratch.ticks += d;
        if (d - 1 < scratch.min - 1) {
            scratch.min = d;
        }
        if (d > scratch.max) {
            scratch.max = d;
        }
        scratch.wticks += (uint32_t)(d < (1u << 24) ? d : (1u << 24));
        scratch.timed++;
        __asm__ __volatile__("" : : "r"(t) : "memory");
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    jp_per_call_ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / N;
    fesetenv(&fp);
}

/*
 * The profile output: the output directory, the rank dumps (at MPI_Finalize when no level wrote
 * the profile, at an early end), the measured cost of a recorded call. The levels that read the
 * recorder say whether they need it (jpmpi_profile_output): the accounting tool does not, the
 * profile tool's Java level does (and then writes profile.json itself). It is on if one of them
 * needs it or none said anything (the recorder alone: its rank dumps are the profile), and
 * JPMPI_PROFILE_OUTPUT=on|off decides over both (jpmpi run sets on when the profile tool is listed).
 */
static int jp_output_no, jp_output_yes, jp_output_on;
static int jp_level_writes; /* the profile's Java level said it needs the output: it writes profile.json */

/*
 * A directory the recorder writes in: made (mode 0700: a job's figures are its user's), or, if it
 * is there, taken only when it is a real directory (not a symbolic link), owned by this user and
 * writable by nobody else, so that no other user can put a file or a link in it (a shared /tmp or
 * scratch area, a name another user guessed). NULL, or the reason it is refused.
 */
static const char *jp_own_dir(const char *path)
{
    if (mkdir(path, 0700) == 0) {
        return NULL;
    }
    if (errno != EEXIST) {
        return strerror(errno);
    }
    struct stat st;
    if (lstat(path, &st) != 0) {
        return strerror(errno);
    }
    if (S_ISLNK(st.st_mode)) {
        return "a symbolic link";
    }
    if (!S_ISDIR(st.st_mode)) {
        return "not a directory";
    }
    if (st.st_uid != geteuid()) {
        return "owned by another user";
    }
    /* group-writable is fine for the user's own group (a umask of 002 with a group per user) */
    if ((st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && st.st_gid != getegid())) {
        return "writable by other users";
    }
    return NULL;
}

static void jp_start_output(void)
{
    char ranks[PATH_MAX + 8];
    /* mkdir -p: a spawned job's directory sits inside its parent's (the parents are only made) */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", jp_outdir);
    for (char *p = path + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            mkdir(path, 0700);
            *p = '/';
        }
    }
    snprintf(ranks, sizeof ranks, "%s/ranks", jp_outdir);
    const char *why = jp_own_dir(jp_outdir);
    const char *where = jp_outdir;
    if (why == NULL) {
        why = jp_own_dir(ranks);
        where = ranks;
    }
    if (why != NULL) {
        dprintf(STDERR_FILENO, "jpmpi (rank %d): profile: the output directory %s is %s: nothing is written there\n",
                jp_world_rank, where, why);
        return;
    }
    jp_output_on = 1;
    snprintf(jp_dump_path, sizeof jp_dump_path, "%s/rank-%d.bin", ranks, jp_world_rank);
    jp_measure_cost();
}

/*
 * No output (the accounting tool alone, or no directory to write in): no call keeps a site from now
 * on. The tables are left allocated (another thread may be writing its own right now), untouched.
 */
static void jp_sites_drop(void)
{
    jp_sites_on = 0;
    for (struct jp_thread *t = jp_threads; t; t = t->next) {
        __atomic_store_n(&t->sites, NULL, __ATOMIC_RELAXED);
    }
}

/* Said by a level before MPI_Init returns to the recorder; a late 1 starts the output then. */
JP_EXPORT void jpmpi_profile_output(int needed)
{
    if (!needed) {
        jp_output_no = 1;
        return;
    }
    jp_output_yes = 1;
    jp_level_writes = 1;
    if (jp_initialized && !jp_output_on) {
        jp_start_output();
    }
}

/* ---------------------------------------------------------------- fatal MPI errors */

static MPI_Errhandler jp_fatal_eh = MPI_ERRHANDLER_NULL;

__thread int jp_refire __attribute__((tls_model("initial-exec")));

/*
 * A fatal error on a communicator: the figures first (state FATAL, the error class), then the
 * communicator's handler is MPI_ERRORS_ARE_FATAL again and the handler returns; the call fails
 * back to its wrapper, which sees jp_refire and makes the same call once more: the library's own
 * fatal handler then ends the process exactly as it would have without jpmpi (same message, same
 * exit status). A call on the lean path (recorder.h, jp_keep) has no wrapper to return to: the
 * handler makes it once more itself, from the arguments the wrapper kept. Argument errors, the
 * usual fatal ones, happen before a call does anything.
 */
static void jp_fatal_dump(int code)
{
    int cls = code;
    PMPI_Error_class(code, &cls);
    if (!jp_ended) {
        jp_ended = 1;
        jp_end_ticks = jp_ticks();
        jp_dump(JP_FATAL, cls);
    }
}

/* A call in flight on the lean path (recorder.h, jp_keep), or -1. Such a call was counted before it
 * was made: it is taken back, since it never returns (as on the full path, which counts a call after it). */
static int jp_fatal_lean(void)
{
    struct jp_thread *t = jp_self;
    if (!t || !t->recall) {
        return -1;
    }
    int id = (int)t->recall - 1;
    t->recall = 0;
    /* (jp_end has not run since: nothing of the lean path's count has moved to the site) */
    if (!jp_unleans[id] || !jp_unleans[id](t, t->args)) {
        struct jp_fstat *s = &t->f[id];
        s->calls--;
    }
    return id;
}

/* The failed call again: from here when it took the lean path, which has nothing to come back to;
 * else after it returns, by its wrapper (jp_refire). */
static void jp_fatal_again(int lean)
{
    if (lean >= 0 && jp_recalls[lean]) {
        jp_recalls[lean](jp_self->args);
        return;
    }
    jp_refire = 1;
}

static void jp_on_fatal(MPI_Comm *comm, int *code, ...)
{
    int lean = jp_fatal_lean();
    jp_fatal_dump(*code);
    PMPI_Comm_set_errhandler(*comm, MPI_ERRORS_ARE_FATAL);
    jp_fatal_again(lean);
}

/* The same for a window, whose handler is MPI_ERRORS_ARE_FATAL from its creation (a file's is
 * MPI_ERRORS_RETURN: an error on a file is fatal only when the program asks for it, and then it
 * is not watched). */
static MPI_Errhandler jp_fatal_win_eh = MPI_ERRHANDLER_NULL;

static void jp_on_fatal_win(MPI_Win *win, int *code, ...)
{
    int lean = jp_fatal_lean();
    jp_fatal_dump(*code);
    PMPI_Win_set_errhandler(*win, MPI_ERRORS_ARE_FATAL);
    jp_fatal_again(lean);
}

/* A window just made: its MPI_ERRORS_ARE_FATAL becomes the watch. Not on MPICH, which hands a
 * window's default fatal error to MPI_COMM_WORLD's handler (the communicator watch): a window
 * handler set explicitly, even back to MPI_ERRORS_ARE_FATAL, would take another path to the abort
 * (another message, exit status 9 for 6). */
void jp_watch_win(MPI_Win win)
{
#if !defined(OPEN_MPI)
    (void)win;
    return;
#endif
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    if (jp_fatal_win_eh != MPI_ERRHANDLER_NULL && PMPI_Win_get_errhandler(win, &h) == MPI_SUCCESS
        && h == MPI_ERRORS_ARE_FATAL) {
        PMPI_Win_set_errhandler(win, jp_fatal_win_eh);
    }
}

/* MPI_Win_set_errhandler's argument and MPI_Win_get_errhandler's answer, as for communicators. */
MPI_Errhandler jp_win_errhandler_in(MPI_Errhandler h)
{
    return h == MPI_ERRORS_ARE_FATAL && jp_fatal_win_eh != MPI_ERRHANDLER_NULL ? jp_fatal_win_eh : h;
}

void jp_win_errhandler_out(MPI_Errhandler *h)
{
    if (jp_fatal_win_eh != MPI_ERRHANDLER_NULL && *h == jp_fatal_win_eh) {
        *h = MPI_ERRORS_ARE_FATAL;
    }
}

/* At MPI_Init: MPI_COMM_WORLD's and MPI_COMM_SELF's MPI_ERRORS_ARE_FATAL becomes the watch
 * (communicators made from them inherit it). */
static void jp_watch_fatal(void)
{
    if (PMPI_Win_create_errhandler(jp_on_fatal_win, &jp_fatal_win_eh) != MPI_SUCCESS) {
        jp_fatal_win_eh = MPI_ERRHANDLER_NULL;
    }
    if (PMPI_Comm_create_errhandler(jp_on_fatal, &jp_fatal_eh) != MPI_SUCCESS) {
        jp_fatal_eh = MPI_ERRHANDLER_NULL;
        return;
    }
    MPI_Comm comms[2] = {MPI_COMM_WORLD, MPI_COMM_SELF};
    for (int i = 0; i < 2; i++) {
        MPI_Errhandler h = MPI_ERRHANDLER_NULL;
        if (PMPI_Comm_get_errhandler(comms[i], &h) == MPI_SUCCESS && h == MPI_ERRORS_ARE_FATAL) {
            PMPI_Comm_set_errhandler(comms[i], jp_fatal_eh);
        }
    }
}

/* MPI_Comm_set_errhandler's argument: MPI_ERRORS_ARE_FATAL means the watch. */
MPI_Errhandler jp_errhandler_in(MPI_Errhandler h)
{
    return h == MPI_ERRORS_ARE_FATAL && jp_fatal_eh != MPI_ERRHANDLER_NULL ? jp_fatal_eh : h;
}

/* MPI_Comm_get_errhandler's answer: the watch is MPI_ERRORS_ARE_FATAL to the application. */
void jp_errhandler_out(MPI_Errhandler *h)
{
    if (jp_fatal_eh != MPI_ERRHANDLER_NULL && *h == jp_fatal_eh) {
        *h = MPI_ERRORS_ARE_FATAL;
    }
}

/* The world's processes as a group: MPI_COMM_WORLD's, or, in a program that uses only sessions,
 * the "mpi://world" process set of a session of the recorder's own (rec_comm.c translates ranks
 * with it). */
MPI_Group jp_world_group = MPI_GROUP_NULL;
static int jp_world_model; /* MPI_Init or MPI_Init_thread has returned */

/* Recording starts: `all` is a communicator of the world's processes, for agreeing on the output
 * directory. */
static void jp_recording_starts(MPI_Comm all)
{
    jp_first_env(jp_job_variables, jp_jobid, sizeof jp_jobid);
    /* Slurm's step ids are numbers or "batch"/"extern": a longer one is left out, never cut */
    const char *step = getenv("SLURM_STEP_ID");
    if (step && strlen(step) < sizeof jp_step) {
        memcpy(jp_step, step, strlen(step) + 1);
    }
    /* the rank's node as the accounting record names it: Slurm's node name where there is one
     * (SLURMD_NODENAME, in every task of a step), else the host name (PROFILE.md, profile.json's "hosts") */
    const char *node = getenv("SLURMD_NODENAME");
    if (node && *node) {
        snprintf(jp_host, sizeof jp_host, "%s", node);
    } else {
        gethostname(jp_host, sizeof jp_host - 1);
    }
    ssize_t n = readlink("/proc/self/exe", jp_exe, sizeof jp_exe - 1);
    jp_exe[n > 0 ? n : 0] = 0;
    jp_own_start(all);
    jp_choose_outdir(all);
    const char *want = getenv(JPMPI_SETTING_PROFILE_OUTPUT);
    if (want && strcmp(want, "on") == 0) {
        jp_output_yes = 1;
    } else if (want && strcmp(want, "off") == 0) {
        jp_output_no = 1;
        jp_output_yes = 0;
    }
    if (jp_output_yes || !jp_output_no) {
        jp_start_output();
    }
    if (!jp_output_on) {
        jp_sites_drop();
    }
    jp_own_agree();
    for (int i = 0; i < 3; i++) {
        struct sigaction now;
        if (sigaction(jp_signals[i], NULL, &now) == 0 && now.sa_handler == SIG_DFL) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = jp_on_signal;
            sigemptyset(&sa.sa_mask);
            sigaction(jp_signals[i], &sa, &jp_old[i]);
        }
    }
    struct sigaction now;
    if (sigaction(SIGUSR1, NULL, &now) == 0 && ((now.sa_flags & SA_SIGINFO) || now.sa_handler != SIG_IGN)) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = jp_on_flush_signal;
        /* a handler found keeps its own restart choice; else the program's interrupted system call
         * goes on as if nothing happened */
        sa.sa_flags = SA_SIGINFO | (now.sa_handler == SIG_DFL ? SA_RESTART : (now.sa_flags & SA_RESTART));
        sa.sa_mask = now.sa_mask;
        jp_flush_installed = sigaction(SIGUSR1, &sa, &jp_flush_old) == 0;
    }
    for (int i = 0; i < 5; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = jp_on_crash;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        sigaction(jp_crash_signals[i], &sa, &jp_crash_old[i]);
    }
    atexit(jp_at_exit);
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    jp_init_unix_ns = (int64_t)real.tv_sec * 1000000000 + real.tv_nsec;
    clock_gettime(CLOCK_MONOTONIC, &jp_init_mono);
    jp_init_ticks = jp_ticks();
    jp_start_ticks = jp_start_begin && jp_init_ticks > jp_start_begin ? jp_init_ticks - jp_start_begin : 0;
    jp_initialized = 1;
    jp_on = 1;
}

/* MPI_Init or MPI_Init_thread returned (recording may have started already with a session). */
static void jp_started(void)
{
    jp_start_begin = jp_ticks();
    jp_world_model = 1;
    jp_watch_fatal();
    if (jp_initialized) {
        return;
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &jp_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &jp_world_size);
    PMPI_Comm_group(MPI_COMM_WORLD, &jp_world_group);
    jp_recording_starts(MPI_COMM_WORLD);
}

/* ---------------------------------------------------------------- the sessions model (MPI-4) */

#if MPI_VERSION >= 4
static MPI_Session jp_session = MPI_SESSION_NULL;
static MPI_Comm jp_session_comm = MPI_COMM_NULL;
static int jp_sessions; /* the application's sessions now open */

/* After the application's MPI_Session_init: the first one starts recording where MPI_Init has not. */
void jp_session_started(void)
{
    if (jp_sessions++ > 0 || jp_initialized) {
        return;
    }
    jp_start_begin = jp_ticks();
    if (PMPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &jp_session) != MPI_SUCCESS
        || PMPI_Group_from_session_pset(jp_session, "mpi://world", &jp_world_group) != MPI_SUCCESS
        || PMPI_Comm_create_from_group(jp_world_group, "io.jpmpi.profile", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                       &jp_session_comm) != MPI_SUCCESS) {
        return; /* no world to tell the ranks apart: nothing recorded */
    }
    PMPI_Group_rank(jp_world_group, &jp_world_rank);
    PMPI_Group_size(jp_world_group, &jp_world_size);
    jp_recording_starts(jp_session_comm);
}

/* Before the application's MPI_Session_finalize: the last one ends a run that never had MPI_Init,
 * as MPI_Finalize would (the figures written, state FINALIZE; jpmpi run merges them). */
void jp_session_ending(void)
{
    if (--jp_sessions > 0 || jp_world_model || !jp_initialized || jp_session == MPI_SESSION_NULL) {
        return;
    }
    jp_end_ticks = jp_ticks();
    jp_on = 0;
    if (!jp_level_writes && jp_gather_dumps(JP_FINALIZE)) {
        jp_ended = 1;
    }
    jp_own_end();
    if (!jp_ended) {
        jp_ended = 1;
        jp_dump(JP_FINALIZE, 0);
    }
    jp_flush_signal_done();
    PMPI_Comm_free(&jp_session_comm);
    PMPI_Group_free(&jp_world_group);
    PMPI_Session_finalize(&jp_session);
}
#else
void jp_session_started(void)
{
}

void jp_session_ending(void)
{
}
#endif

/* ---------------------------------------------------------------- lifecycle wrappers */

JP_EXPORT int MPI_Init(int *argc, char ***argv)
{
    struct jp_call c;
    jp_begin(&c, JP_F_MPI_Init);
    int rc = PMPI_Init(argc, argv);
    c.t1 = c.t0; /* counted, not timed: the application's time starts when it returns */
    jp_end(&c, JP_F_MPI_Init, 0);
    if (rc == MPI_SUCCESS) {
        jp_started();
    }
    return rc;
}

JP_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    struct jp_call c;
    jp_begin(&c, JP_F_MPI_Init_thread);
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    c.t1 = c.t0; /* counted, not timed: the application's time starts when it returns */
    jp_end(&c, JP_F_MPI_Init_thread, 0);
    if (rc == MPI_SUCCESS) {
        jp_started();
    }
    return rc;
}

JP_EXPORT int MPI_Finalize(void)
{
    struct jp_call c;
    jp_begin(&c, JP_F_MPI_Finalize);
    jp_end_ticks = jp_ticks();
    c.t1 = c.t0;
    jp_end(&c, JP_F_MPI_Finalize, 0);
    jp_on = 0;
    if (jp_output_on) {
        jp_sites_at_finalize();
    }
    if (jp_initialized && !jp_level_writes && jp_gather_dumps(JP_FINALIZE)) {
        /* No Java level writes the profile (the profile tool alone: jpmpi run merges the dumps
         * rank 0 has just written, after the ranks exit) */
        jp_ended = 1;
    }
    jp_own_end();
    int rc = PMPI_Finalize();
    if (!jp_ended) {
        /* The Java level failed, or rank 0 has no output directory: each rank keeps what it has. */
        jp_ended = 1;
        jp_dump(JP_FINALIZE, 0);
    }
    jp_flush_signal_done();
    return rc;
}

JP_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    struct jp_call c;
    jp_begin(&c, JP_F_MPI_Abort);
    c.t1 = c.t0;
    jp_end(&c, JP_F_MPI_Abort, 0);
    if (!jp_ended) {
        jp_ended = 1;
        jp_end_ticks = jp_ticks();
        jp_dump(JP_ABORT, errorcode);
    }
    return PMPI_Abort(comm, errorcode);
}

JP_EXPORT int MPI_Pcontrol(const int level, ...)
{
    struct jp_call c;
    jp_begin(&c, JP_F_MPI_Pcontrol);
    int rc = PMPI_Pcontrol(level);
    jp_stop(&c);
    jp_end(&c, JP_F_MPI_Pcontrol, 0);
    if (level == 0) {
        jp_on = 0;
    } else if (level == 1) {
        jp_on = 1;
    } else if (level == 2 && jp_initialized && !jp_ended) {
        jp_dump(JP_FLUSH, 0);
    }
    return rc;
}

