/*
 * hwc.c - the hand-written half of the `hwc` tool's C level: choosing and opening the perf events
 * (with the software fallback), choosing how to read them (rdpmc or read(2), measured), per-thread
 * blocks, the lifecycle wrappers (MPI_Init*, MPI_Finalize) and what other levels read (jpmpi_hwc_*:
 * the hwc Java level through FFM, the accounting level with dlsym). The per-function wrappers are
 * generated (jpmpi_hwc.c).
 */
#define _GNU_SOURCE
#include "hwc.h"
#include "jpmpi_settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

__thread struct hwc_thread *hwc_self __attribute__((tls_model("initial-exec")));
int hwc_method = HWC_READ;

static struct hwc_thread *volatile hwc_threads;
static volatile int hwc_running;     /* between MPI_Init and MPI_Finalize: new threads open counters */
static int hwc_frozen;               /* MPI_Finalize started: the figures are final */
static int hwc_read_by_level;        /* another level took the totals: no per-rank line at the end */

/* The events of this process, as the user named them. */
static int hwc_nev;
static char hwc_event_names[HWC_MAX][32];
static uint32_t hwc_type[HWC_MAX];
static uint64_t hwc_config[HWC_MAX];
static int hwc_hardware;
static char hwc_notice[640];         /* printed by rank 0 once MPI_Init has returned */
static double hwc_read_ns[2] = {-1, -1};

/* TSC rate: from the TSC and CLOCK_MONOTONIC at MPI_Init and at MPI_Finalize. */
static uint64_t hwc_tsc0, hwc_tsc1;
static struct timespec hwc_mono0, hwc_mono1;

/* ---------------------------------------------------------------- events */

struct hwc_known {
    const char *name;
    uint32_t type;
    uint64_t config;
};

static const struct hwc_known hwc_known[] = {
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
};

static const char hwc_software_set[] = "task-clock,context-switches,page-faults";

/* Name → perf type and config; 0 if unknown. */
static int hwc_resolve(const char *name, uint32_t *type, uint64_t *config)
{
    for (size_t i = 0; i < sizeof hwc_known / sizeof hwc_known[0]; i++) {
        if (strcmp(name, hwc_known[i].name) == 0) {
            *type = hwc_known[i].type;
            *config = hwc_known[i].config;
            return 1;
        }
    }
    /* AMD family 17h and later (Zen): PMCx003 with unit mask 0x0f, the retired SSE/AVX FLOPs. */
    if (strcmp(name, "fp_ops") == 0 && hwc_amd_family() >= 0x17) {
        *type = PERF_TYPE_RAW;
        *config = 0x0f03;
        return 1;
    }
    char *end;
    if (name[0] == 'r' && name[1]) {
        unsigned long long v = strtoull(name + 1, &end, 16);
        if (*end == 0) {
            *type = PERF_TYPE_RAW;
            *config = v;
            return 1;
        }
    }
    return 0;
}

static void hwc_close_thread(struct hwc_thread *t)
{
    for (int i = 0; i < HWC_MAX; i++) {
        if (t->page[i]) {
            munmap(t->page[i], (size_t)sysconf(_SC_PAGESIZE));
            t->page[i] = NULL;
        }
        if (t->fd[i] >= 0) {
            close(t->fd[i]);
            t->fd[i] = -1;
        }
    }
    t->n = 0;
}

/* A thread's counters, none open: every descriptor -1 (a 0 is stdin, which closing them would close). */
static struct hwc_thread *hwc_thread_alloc(void)
{
    struct hwc_thread *t = calloc(1, sizeof *t);
    for (int i = 0; t && i < HWC_MAX; i++) {
        t->fd[i] = -1;
    }
    return t;
}

/* Opens this process's events as one group for the calling thread; errno of the first failure. */
static int hwc_open_thread(struct hwc_thread *t)
{
    for (int i = 0; i < HWC_MAX; i++) {
        t->fd[i] = -1;
    }
    for (int i = 0; i < hwc_nev; i++) {
        t->fd[i] = hwc_perf_open(hwc_type[i], hwc_config[i], i ? t->fd[0] : -1, 0);
        if (t->fd[i] < 0) {
            int e = errno;
            hwc_close_thread(t);
            return e;
        }
        void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, t->fd[i], 0);
        t->page[i] = p == MAP_FAILED ? NULL : p;
    }
    t->leader = t->fd[0];
    t->n = hwc_nev;
    uint64_t now[HWC_MAX];
    int m = hwc_method;
    hwc_method = HWC_READ;
    hwc_read(t, now);
    hwc_method = m;
    memcpy(t->base, now, sizeof now);
    memcpy(t->entry, now, sizeof now);
    t->base_ticks = hwc_ticks();
    return 0;
}

/* Adds a line to the notice rank 0 prints. */
static void hwc_note(const char *fmt, const char *a, const char *b)
{
    size_t used = strlen(hwc_notice);
    snprintf(hwc_notice + used, sizeof hwc_notice - used, fmt, a, b);
}

/* Parses `list` into the event table; unknown names are dropped with a note. */
static void hwc_parse(const char *list)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", list);
    hwc_nev = 0;
    char *save = NULL;
    for (char *name = strtok_r(copy, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
        if (hwc_nev == HWC_MAX) {
            hwc_note("jpmpi hwc: at most 8 events; %s and after are ignored%s\n", name, "");
            break;
        }
        if (!hwc_resolve(name, &hwc_type[hwc_nev], &hwc_config[hwc_nev])) {
            hwc_note("jpmpi hwc: unknown event '%s' ignored%s\n", name, "");
            continue;
        }
        snprintf(hwc_event_names[hwc_nev], sizeof hwc_event_names[0], "%s", name);
        hwc_nev++;
    }
}

/* Drops events that cannot be opened alone (with a note for the events the user named). */
static void hwc_keep_openable(int quiet)
{
    int k = 0;
    for (int i = 0; i < hwc_nev; i++) {
        int fd = hwc_perf_open(hwc_type[i], hwc_config[i], -1, 0);
        if (fd < 0) {
            if (!quiet) {
                hwc_note("jpmpi hwc: event '%s' unavailable (%s); left out\n", hwc_event_names[i], strerror(errno));
            }
            continue;
        }
        close(fd);
        if (k != i) {
            memcpy(hwc_event_names[k], hwc_event_names[i], sizeof hwc_event_names[0]);
            hwc_type[k] = hwc_type[i];
            hwc_config[k] = hwc_config[i];
        }
        k++;
    }
    hwc_nev = k;
}

static int hwc_any_hardware(void)
{
    for (int i = 0; i < hwc_nev; i++) {
        if (hwc_type[i] != PERF_TYPE_SOFTWARE) {
            return 1;
        }
    }
    return 0;
}

/* Some VMs open PMU events that never count: a PMU is usable if a busy loop moves a hardware counter. */
static int hwc_counts(struct hwc_thread *t)
{
    uint64_t a[HWC_MAX], b[HWC_MAX];
    hwc_read(t, a);
    for (volatile int i = 0; i < 20000; i++) {
    }
    hwc_read(t, b);
    for (int i = 0; i < t->n; i++) {
        if (hwc_type[i] != PERF_TYPE_SOFTWARE && b[i] != a[i]) {
            return 1;
        }
    }
    return 0;
}

static double hwc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The cost of one read of every counter with `method` (median-free: the best of 5 blocks). */
static double hwc_measure(struct hwc_thread *t, int method)
{
    int m = hwc_method;
    hwc_method = method;
    uint64_t v[HWC_MAX];
    double best = 1e30;
    for (int block = 0; block < 5; block++) {
        double a = hwc_now_ns();
        for (int i = 0; i < 40; i++) {
            hwc_read(t, v);
            __asm__ __volatile__("" : : "r"(v) : "memory");
        }
        double d = (hwc_now_ns() - a) / 40;
        best = d < best ? d : best;
    }
    hwc_method = m;
    return best;
}

static int hwc_rdpmc_possible(struct hwc_thread *t)
{
    for (int i = 0; i < t->n; i++) {
        if (!t->page[i] || !t->page[i]->cap_user_rdpmc || hwc_type[i] == PERF_TYPE_SOFTWARE) {
            return 0;
        }
    }
    return t->n > 0;
}

/* rdpmc, read(2) or auto: the faster of the two on this machine. */
static void hwc_choose_method(struct hwc_thread *t)
{
    const char *want = getenv(JPMPI_SETTING_HWC_READ);
    int rdpmc = hwc_rdpmc_possible(t);
    hwc_read_ns[HWC_READ] = hwc_measure(t, HWC_READ);
    if (rdpmc) {
        hwc_read_ns[HWC_RDPMC] = hwc_measure(t, HWC_RDPMC);
    }
    if (want && strcmp(want, "read") == 0) {
        hwc_method = HWC_READ;
    } else if (want && strcmp(want, "rdpmc") == 0) {
        hwc_method = rdpmc ? HWC_RDPMC : HWC_READ;
        if (!rdpmc) {
            hwc_note("jpmpi hwc: %s=rdpmc, but user-space reads are not possible for these events; using read(2)%s\n",
                     JPMPI_SETTING_HWC_READ, "");
        }
    } else {
        if (want && *want && strcmp(want, "auto") != 0) {
            hwc_note("jpmpi hwc: %s='%s' is not rdpmc, read or auto; using auto\n", JPMPI_SETTING_HWC_READ, want);
        }
        hwc_method = rdpmc && hwc_read_ns[HWC_RDPMC] < hwc_read_ns[HWC_READ] ? HWC_RDPMC : HWC_READ;
    }
}

/* MPI_Init*: the events, the main thread's counters, the read method. Never fails the job. */
static void hwc_start(void)
{
    const char *env = getenv(JPMPI_SETTING_HWC_EVENTS);
    int dflt = !env || !*env;
    int software = !dflt && strcmp(env, "software") == 0;
    hwc_parse(dflt ? "instructions,cycles,fp_ops" : software ? hwc_software_set : env);
    hwc_keep_openable(dflt);
    struct hwc_thread *t = hwc_thread_alloc();
    if (!t) {
        return;
    }
    int err = hwc_nev ? hwc_open_thread(t) : 0;
    if (err && hwc_nev > 1) {
        /* Each event opens alone but the group does not fit the PMU: keep the first events that do. */
        while (err && hwc_nev > 1) {
            hwc_nev--;
            hwc_note("jpmpi hwc: event '%s' does not fit in one group with the others; left out%s\n",
                     hwc_event_names[hwc_nev], "");
            err = hwc_open_thread(t);
        }
    }
    if (!software && (!hwc_any_hardware() || err || !t->n || !hwc_counts(t))) {
        /* No usable PMU: the software set, said in one line. */
        const char *why = err ? strerror(err) : hwc_nev && t->n ? "the counters do not count" : "no hardware event opens";
        hwc_close_thread(t);
        hwc_note("jpmpi hwc: no usable hardware counters (%s); counting software events %s instead\n", why,
                 hwc_software_set);
        hwc_parse(hwc_software_set);
        hwc_keep_openable(0);
        err = hwc_nev ? hwc_open_thread(t) : 0;
    }
    if (err || !t->n) {
        hwc_close_thread(t);
        free(t);
        hwc_nev = 0;
        hwc_note("jpmpi hwc: no event could be opened (%s); nothing is counted\n", strerror(err ? err : ENOENT), "");
        return;
    }
    hwc_hardware = hwc_any_hardware();
    hwc_choose_method(t);
    t->next = hwc_threads;
    hwc_threads = t;
    hwc_self = t;
    hwc_tsc0 = hwc_ticks();
    clock_gettime(CLOCK_MONOTONIC, &hwc_mono0);
    hwc_running = 1;
}

/* ---------------------------------------------------------------- threads */

struct hwc_thread *hwc_thread_new(void)
{
    if (!hwc_running) {
        return NULL;
    }
    struct hwc_thread *t = hwc_thread_alloc();
    if (!t) {
        return NULL;
    }
    if (hwc_open_thread(t) != 0) {
        t->n = 0; /* this thread is not counted; its calls cost the depth check only */
    }
    struct hwc_thread *head;
    do {
        head = hwc_threads;
        t->next = head;
    } while (!__atomic_compare_exchange_n(&hwc_threads, &head, t, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
    hwc_self = t;
    return t;
}

/* Thread t's totals and in-MPI part now (read(2) works from any thread). */
static void hwc_current(struct hwc_thread *t, uint64_t *total, uint64_t *in, uint64_t *ticks, uint64_t *in_ticks)
{
    uint64_t now[HWC_MAX];
    int m = hwc_method;
    hwc_method = HWC_READ;
    hwc_read(t, now);
    hwc_method = m;
    uint64_t tk = hwc_ticks();
    int busy = t->depth > 0;
    for (int i = 0; i < t->n; i++) {
        total[i] = now[i] - t->base[i];
        in[i] = t->in[i] + (busy ? now[i] - t->entry[i] : 0);
    }
    *ticks = tk - t->base_ticks;
    *in_ticks = t->in_ticks + (busy ? tk - t->entry_ticks : 0);
}

/* MPI_Finalize: every thread's figures become final and nothing is read any more. */
static void hwc_freeze(void)
{
    hwc_running = 0;
    for (struct hwc_thread *t = hwc_threads; t; t = t->next) {
        if (t->n) {
            hwc_current(t, t->fin, t->fin_in, &t->fin_ticks, &t->fin_in_ticks);
            t->frozen = 1;
            t->n = 0;
        }
    }
    hwc_tsc1 = hwc_ticks();
    clock_gettime(CLOCK_MONOTONIC, &hwc_mono1);
    hwc_frozen = 1;
}

static double hwc_tick_seconds(void)
{
    uint64_t tsc = hwc_frozen ? hwc_tsc1 : hwc_ticks();
    struct timespec m = hwc_mono1;
    if (!hwc_frozen) {
        clock_gettime(CLOCK_MONOTONIC, &m);
    }
    double ns = (double)(m.tv_sec - hwc_mono0.tv_sec) * 1e9 + (double)(m.tv_nsec - hwc_mono0.tv_nsec);
    return tsc > hwc_tsc0 && ns > 0 ? ns * 1e-9 / (double)(tsc - hwc_tsc0) : 0;
}

/* The sums over threads; returns the number of events. */
static int hwc_sum(uint64_t *total, uint64_t *in, uint64_t *ticks, uint64_t *in_ticks)
{
    memset(total, 0, sizeof(uint64_t) * HWC_MAX);
    memset(in, 0, sizeof(uint64_t) * HWC_MAX);
    *ticks = 0;
    *in_ticks = 0;
    for (struct hwc_thread *t = hwc_threads; t; t = t->next) {
        uint64_t a[HWC_MAX] = {0}, b[HWC_MAX] = {0}, tk = 0, itk = 0;
        if (t->frozen) {
            memcpy(a, t->fin, sizeof a);
            memcpy(b, t->fin_in, sizeof b);
            tk = t->fin_ticks;
            itk = t->fin_in_ticks;
        } else if (t->n) {
            hwc_current(t, a, b, &tk, &itk);
        } else {
            continue;
        }
        for (int i = 0; i < hwc_nev; i++) {
            total[i] += a[i];
            in[i] += b[i];
        }
        *ticks += tk;
        *in_ticks += itk;
    }
    return hwc_nev;
}

/* ---------------------------------------------------------------- what other levels call */

/* This rank's totals so far (all threads), for other levels. Returns the number of events (0 when no counters are open). */
HWC_EXPORT int jpmpi_hwc_totals(int max, char names[][32], unsigned long long *total, unsigned long long *in_mpi,
                                int *hardware)
{
    uint64_t t[HWC_MAX], in[HWC_MAX], ticks, in_ticks;
    int n = hwc_sum(t, in, &ticks, &in_ticks);
    hwc_read_by_level = 1;
    if (hardware) {
        *hardware = n ? hwc_hardware : 0;
    }
    for (int i = 0; i < n && i < max; i++) {
        if (names) {
            snprintf(names[i], 32, "%s", hwc_event_names[i]);
        }
        if (total) {
            total[i] = t[i];
        }
        if (in_mpi) {
            in_mpi[i] = in[i];
        }
    }
    return n;
}

/* Seconds counted (summed over the counting threads) and the part inside MPI; returns the thread count. */
HWC_EXPORT int jpmpi_hwc_seconds(double *total, double *in_mpi)
{
    int threads = 0;
    uint64_t t[HWC_MAX], in[HWC_MAX], ticks, in_ticks;
    hwc_sum(t, in, &ticks, &in_ticks);
    for (struct hwc_thread *th = hwc_threads; th; th = th->next) {
        threads += th->frozen || th->n;
    }
    double s = hwc_tick_seconds();
    *total = (double)ticks * s;
    *in_mpi = (double)in_ticks * s;
    return threads;
}

/*
 * Function id's in-MPI figures summed over threads: calls, seconds and events[0..n). Returns its
 * name, or NULL past the last function.
 */
HWC_EXPORT const char *jpmpi_hwc_function(int id, unsigned long long *calls, double *seconds,
                                          unsigned long long *events)
{
    if (id < 0 || id >= HWC_NFUNC) {
        return NULL;
    }
    uint64_t c = 0, tk = 0, ev[HWC_MAX] = {0};
    for (struct hwc_thread *t = hwc_threads; t; t = t->next) {
        c += t->f[id].calls;
        tk += t->f[id].ticks;
        for (int i = 0; i < hwc_nev; i++) {
            ev[i] += t->f[id].ev[i];
        }
    }
    *calls = c;
    *seconds = (double)tk * hwc_tick_seconds();
    for (int i = 0; i < hwc_nev; i++) {
        events[i] = ev[i];
    }
    return hwc_names[id];
}

/* How the counters are read ("rdpmc" or "read") and what one read of all of them cost at MPI_Init (ns; -1: not measured). */
HWC_EXPORT const char *jpmpi_hwc_method(double *rdpmc_ns, double *read_ns)
{
    *rdpmc_ns = hwc_read_ns[HWC_RDPMC];
    *read_ns = hwc_read_ns[HWC_READ];
    return hwc_method == HWC_RDPMC ? "rdpmc" : "read";
}

/* ---------------------------------------------------------------- lifecycle wrappers */

static void hwc_started(int rc)
{
    int rank = -1;
    if (rc == MPI_SUCCESS) {
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    }
    if (rank == 0 && hwc_notice[0]) {
        dprintf(STDERR_FILENO, "%s", hwc_notice);
    }
}

HWC_EXPORT int MPI_Init(int *argc, char ***argv)
{
    hwc_start();
    hwc_frame f = hwc_enter();
    int rc = PMPI_Init(argc, argv);
    hwc_exit(f, HWC_F_MPI_Init);
    hwc_started(rc);
    return rc;
}

HWC_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    hwc_start();
    hwc_frame f = hwc_enter();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    hwc_exit(f, HWC_F_MPI_Init_thread);
    hwc_started(rc);
    return rc;
}

/* No level took the figures: one line per rank on stderr, so a C-level-only run still says something. */
static void hwc_report_line(void)
{
    uint64_t t[HWC_MAX], in[HWC_MAX], ticks, in_ticks;
    int n = hwc_sum(t, in, &ticks, &in_ticks);
    if (!n) {
        return;
    }
    char line[1024];
    int used = snprintf(line, sizeof line, "jpmpi hwc (pid %d):", (int)getpid());
    for (int i = 0; i < n && used < (int)sizeof line; i++) {
        used += snprintf(line + used, sizeof line - (size_t)used, " %s app=%llu mpi=%llu", hwc_event_names[i],
                         (unsigned long long)(t[i] - in[i]), (unsigned long long)in[i]);
    }
    dprintf(STDERR_FILENO, "%s\n", line);
}

HWC_EXPORT int MPI_Finalize(void)
{
    hwc_frame f = hwc_enter();
    hwc_freeze();
    int rc = PMPI_Finalize();
    hwc_exit(f, HWC_F_MPI_Finalize);
    if (!hwc_read_by_level) {
        hwc_report_line();
    }
    for (struct hwc_thread *t = hwc_threads; t; t = t->next) {
        hwc_close_thread(t);
    }
    return rc;
}
