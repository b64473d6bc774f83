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
#include "mpisample.h"
#include "jpmpi.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

/* Sampled mode: the leading event (the first) overflows every hwc_period events with hwc_signal. */
/* 30 a second: an overflow's signal costs ~28 us on a KVM guest (benchmarks/README.md), so 0.1 % of a core. */
#define HWC_DEFAULT_HZ 30
#define HWC_AUTO_NS 200.0            /* auto: sampled when a call's two reads cost more than this */
static int hwc_sampling;             /* 1: sampled mode for every thread of the process */
static int hwc_hz = HWC_DEFAULT_HZ;
static uint64_t hwc_period;
static int hwc_signal;
static int16_t hwc_map[2048];        /* the dispatcher's function index -> hwc id (-1: not wrapped) */
static int hwc_nmap;
static int hwc_left;                 /* sampled: functions whose wrappers left the chain after MPI_Init */

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

/* The sampled leader: off until armed, overflowing every hwc_period events. */
static int hwc_perf_open_sampling(uint32_t type, uint64_t config)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_GROUP;
    a.disabled = 1;
    a.sample_period = hwc_period;
    a.wakeup_events = 1;
    if (type == PERF_TYPE_SOFTWARE) {
        /* task-clock counts the thread's time in the kernel too; an overflow there (an MPI polling
         * with sched_yield, a page fault) must still signal, or its interval goes to the next
         * overflow in user space, maybe after the call returned. Not allowed unprivileged with
         * perf_event_paranoid >= 2: then user-space overflows only. */
        a.exclude_kernel = 0;
        int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0) {
            return fd;
        }
        a.exclude_kernel = 1;
    }
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * Sampled mode: the leader's overflows become hwc_signal to the calling thread (F_SETOWN_EX with
 * its tid, F_SETSIG: the signal carries the fd), then the group starts. 0, or errno.
 */
static int hwc_arm(struct hwc_thread *t)
{
    struct f_owner_ex owner = {F_OWNER_TID, gettid()};
    if (fcntl(t->leader, F_SETOWN_EX, &owner) != 0 || fcntl(t->leader, F_SETSIG, hwc_signal) != 0 ||
        fcntl(t->leader, F_SETFL, fcntl(t->leader, F_GETFL) | O_ASYNC) != 0) {
        return errno;
    }
    t->sampled = 1;
    if (ioctl(t->leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0) {
        return errno;
    }
    return 0;
}

/* Opens this process's events as one group for the calling thread; errno of the first failure. */
static int hwc_open_thread(struct hwc_thread *t)
{
    for (int i = 0; i < HWC_MAX; i++) {
        t->fd[i] = -1;
    }
    for (int i = 0; i < hwc_nev; i++) {
        t->fd[i] = i == 0 && hwc_sampling ? hwc_perf_open_sampling(hwc_type[0], hwc_config[0])
                                          : hwc_perf_open(hwc_type[i], hwc_config[i], i ? t->fd[0] : -1, 0);
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
    memcpy(t->last, now, sizeof now);
    t->base_ticks = hwc_ticks();
    t->last_ticks = t->base_ticks;
    if (hwc_sampling) {
        int e = hwc_arm(t);
        if (e) {
            hwc_close_thread(t);
            return e;
        }
    }
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

/* ---------------------------------------------------------------- sampled mode */

/*
 * The overflow of a thread's leading event: the counts since the last sample go where the thread
 * is now (inside MPI: the outermost MPI call on its stack, and that function; else the
 * application). In the handler: no lock, no allocation; the thread's own block only.
 */
static void hwc_on_sample(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    struct hwc_thread *t = hwc_self;
    if (!t || !t->sampled || !t->n || !hwc_running || si->si_fd != t->leader ||
        (si->si_code != POLL_IN && si->si_code != POLL_HUP)) {
        return; /* not this thread's overflow, or after MPI_Finalize started */
    }
    int saved = errno;
    uint64_t buf[1 + HWC_MAX];
    if (read(t->leader, buf, sizeof(uint64_t) * (size_t)(1 + t->n)) > 0) {
        uint64_t tk = hwc_ticks();
        int fn = mps_classify();
        int id = fn >= 0 && fn < hwc_nmap ? hwc_map[fn] : -1;
        struct hwc_fstat *f = id >= 0 ? &t->f[id] : NULL;
        t->samples++;
        t->in_samples += fn >= 0;
        uint64_t d = tk - t->last_ticks;
        t->last_ticks = tk;
        if (fn >= 0) {
            t->in_ticks += d;
        }
        if (f) {
            f->ticks += d;
            f->samples++;
        }
        for (int i = 0; i < t->n; i++) {
            uint64_t e = buf[1 + i] - t->last[i];
            t->last[i] = buf[1 + i];
            if (fn >= 0) {
                t->in[i] += e;
            }
            if (f) {
                f->ev[i] += e;
            }
        }
    }
    errno = saved;
}

/* The leading event's period: 1/hz s of task-clock, else its rate over a short busy loop / hz. */
static uint64_t hwc_choose_period(void)
{
    if (hwc_type[0] == PERF_TYPE_SOFTWARE) {
        return 1000000000ull / (uint64_t)hwc_hz;
    }
    int fd = hwc_perf_open(hwc_type[0], hwc_config[0], -1, 0);
    double rate = 3e9;
    if (fd >= 0) {
        uint64_t a[2] = {0, 0}, b[2] = {0, 0};
        double t0 = 0, t1 = 0;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        t0 = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
        if (read(fd, a, sizeof a) > 0) {
            do {
                clock_gettime(CLOCK_MONOTONIC, &ts);
                t1 = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
            } while (t1 - t0 < 0.002);
            if (read(fd, b, sizeof b) > 0 && b[1] > a[1]) {
                rate = (double)(b[1] - a[1]) / (t1 - t0);
            }
        }
        close(fd);
    }
    uint64_t p = (uint64_t)(rate / hwc_hz);
    return p < 10000 ? 10000 : p;
}

/* The dispatcher's function index -> hwc id, by name. */
static void hwc_make_map(void)
{
    typedef int (*count_fn)(void);
    typedef const char *(*name_fn)(int);
    count_fn count = (count_fn)dlsym(RTLD_DEFAULT, "jpmpi_function_count");
    name_fn name = (name_fn)dlsym(RTLD_DEFAULT, "jpmpi_function_name");
    int n = count && name ? count() : 0;
    hwc_nmap = n < (int)(sizeof hwc_map / sizeof hwc_map[0]) ? n : (int)(sizeof hwc_map / sizeof hwc_map[0]);
    for (int f = 0; f < hwc_nmap; f++) {
        const char *fname = name(f);
        hwc_map[f] = -1;
        for (int id = 0; fname && id < HWC_NFUNC; id++) {
            if (strcmp(fname, hwc_names[id]) == 0) {
                hwc_map[f] = (int16_t)id;
                break;
            }
        }
    }
}

/* JPMPI_HWC_MODE against the measured cost of a call's two reads; 1 for sampled. */
static int hwc_want_sampled(void)
{
    const char *mode = getenv(JPMPI_SETTING_HWC_MODE);
    double best = hwc_read_ns[HWC_READ];
    if (hwc_read_ns[HWC_RDPMC] >= 0 && hwc_read_ns[HWC_RDPMC] < best) {
        best = hwc_read_ns[HWC_RDPMC];
    }
    if (mode && strcmp(mode, "calls") == 0) {
        return 0;
    }
    if (mode && strcmp(mode, "sampled") == 0) {
        return 1;
    }
    if (mode && *mode && strcmp(mode, "auto") != 0) {
        hwc_note("jpmpi hwc: %s='%s' is not calls, sampled or auto; using auto\n", JPMPI_SETTING_HWC_MODE, mode);
    }
    return 2 * best > HWC_AUTO_NS;
}

/* Sampled mode for the process: the rate, the classifier, the signal. 0, or -1 with a note (calls mode stays). */
static int hwc_setup_sampling(void)
{
    const char *rate = getenv(JPMPI_SETTING_HWC_SAMPLING);
    if (rate && *rate) {
        char *end;
        long v = strtol(rate, &end, 10);
        if (*end || v < 1 || v > 10000) {
            hwc_note("jpmpi hwc: %s='%s' is not a rate from 1 to 10000 per second; using 30\n",
                     JPMPI_SETTING_HWC_SAMPLING, rate);
        } else {
            hwc_hz = (int)v;
        }
    }
    char why[256];
    if (mps_prepare(why, sizeof why) != 0) {
        hwc_note("jpmpi hwc: cannot sample (%s); counting per call instead\n", why, "");
        return -1;
    }
    hwc_signal = SIGRTMIN + 4;
    struct sigaction old;
    if (sigaction(hwc_signal, NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) {
        snprintf(why, sizeof why, "signal %d (SIGRTMIN+4) has a handler already", hwc_signal);
        hwc_note("jpmpi hwc: cannot sample (%s); counting per call instead\n", why, "");
        return -1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = hwc_on_sample;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(hwc_signal, &sa, NULL);
    hwc_make_map();
    hwc_period = hwc_choose_period();
    return 0;
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
    if (hwc_want_sampled() && hwc_setup_sampling() == 0) {
        /* The same events again, the leader now overflowing with a signal to this thread. */
        hwc_close_thread(t);
        hwc_sampling = 1;
        hwc_method = HWC_READ;
        err = hwc_open_thread(t);
        if (err) {
            hwc_note("jpmpi hwc: cannot sample (%s); counting per call instead\n", strerror(err), "");
            hwc_sampling = 0;
            t->sampled = 0;
            err = hwc_open_thread(t);
            if (err) {
                free(t);
                hwc_nev = 0;
                return;
            }
            hwc_choose_method(t);
        }
    }
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
        t->sampled = hwc_sampling;
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
    if (t->sampled) {
        /* Since the last sample: split as the samples were (the best estimate without a sample). */
        double share = t->samples ? (double)t->in_samples / (double)t->samples : 0;
        for (int i = 0; i < t->n; i++) {
            total[i] = now[i] - t->base[i];
            in[i] = t->in[i] + (uint64_t)(share * (double)(now[i] - t->last[i]) + 0.5);
        }
        *ticks = tk - t->base_ticks;
        *in_ticks = t->in_ticks + (uint64_t)(share * (double)(tk - t->last_ticks) + 0.5);
        return;
    }
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
    hwc_running = 0; /* the overflow handler does nothing from here on */
    for (struct hwc_thread *t = hwc_threads; t; t = t->next) {
        if (t->n && t->sampled) {
            ioctl(t->leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
        }
    }
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

/*
 * "sampled" or "calls"; sampled: the samples taken (all threads), those inside MPI, and the
 * samples per second of the leading event's time (0 in calls mode).
 */
HWC_EXPORT const char *jpmpi_hwc_mode(unsigned long long *samples, unsigned long long *in_mpi, double *rate)
{
    uint64_t n = 0, in = 0;
    for (struct hwc_thread *t = hwc_threads; t; t = t->next) {
        n += t->samples;
        in += t->in_samples;
    }
    *samples = n;
    *in_mpi = in;
    *rate = hwc_sampling ? hwc_hz : 0;
    return hwc_sampling ? "sampled" : "calls";
}

/* Function id's samples summed over threads (sampled mode; 0 in calls mode). */
HWC_EXPORT unsigned long long jpmpi_hwc_function_samples(int id)
{
    uint64_t n = 0;
    for (struct hwc_thread *t = hwc_threads; id >= 0 && id < HWC_NFUNC && t; t = t->next) {
        n += t->f[id].samples;
    }
    return n;
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

/*
 * The tool's own work on the program's thread runs with the floating-point flags held: the
 * program sees its flags as they were (the measurements and the sampled split use doubles, which
 * raise FE_INEXACT).
 */
static void hwc_start_quietly(void)
{
    fenv_t app;
    feholdexcept(&app);
    hwc_start();
    fesetenv(&app);
}

/*
 * Sampled mode finds a thread at its first MPI call, in a wrapper; once only the thread that called
 * MPI_Init may call MPI (the library provides MPI_THREAD_SINGLE or FUNNELED), that thread is
 * sampled already and no wrapper has anything left to do: the level leaves the chain for every
 * function but these (jpmpi_level_leave), and an MPI call costs what it costs without the tool.
 * Under SERIALIZED or MULTIPLE any thread may call MPI: the wrappers stay.
 */
static const char *const hwc_kept[] = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize"};

static void hwc_leave_chain(int rc)
{
    int provided = MPI_THREAD_MULTIPLE;
    if (rc != MPI_SUCCESS || !hwc_sampling || !hwc_running || PMPI_Query_thread(&provided) != MPI_SUCCESS ||
        provided > MPI_THREAD_FUNNELED) {
        return;
    }
    jpmpi_level_of_t level_of = (jpmpi_level_of_t)(void (*)(void))dlsym(RTLD_DEFAULT, "jpmpi_level_of");
    jpmpi_level_leave_t leave = (jpmpi_level_leave_t)(void (*)(void))dlsym(RTLD_DEFAULT, "jpmpi_level_leave");
    int self = level_of ? level_of((const void *)hwc_leave_chain) : -1;
    if (self >= 0 && leave) {
        int n = leave(self, JPMPI_LEAVE_ALL_BUT, hwc_kept, (int)(sizeof hwc_kept / sizeof hwc_kept[0]));
        hwc_left = n > 0 ? n : 0;
    }
}

HWC_EXPORT int MPI_Init(int *argc, char ***argv)
{
    hwc_start_quietly();
    hwc_frame f = hwc_enter();
    int rc = PMPI_Init(argc, argv);
    hwc_exit(f, HWC_F_MPI_Init);
    hwc_started(rc);
    hwc_leave_chain(rc);
    return rc;
}

HWC_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    hwc_start_quietly();
    hwc_frame f = hwc_enter();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    hwc_exit(f, HWC_F_MPI_Init_thread);
    hwc_started(rc);
    hwc_leave_chain(rc);
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
    unsigned long long samples, in_samples;
    double rate;
    const char *mode = jpmpi_hwc_mode(&samples, &in_samples, &rate);
    int used = snprintf(line, sizeof line, "jpmpi hwc (pid %d): %s", (int)getpid(), mode);
    if (hwc_sampling) {
        used += snprintf(line + used, sizeof line - (size_t)used, " (%llu samples, %llu in MPI, wrappers %s)",
                         samples, in_samples, hwc_left ? "left after MPI_Init" : "kept");
    }
    for (int i = 0; i < n && used < (int)sizeof line; i++) {
        used += snprintf(line + used, sizeof line - (size_t)used, " %s app=%llu mpi=%llu", hwc_event_names[i],
                         (unsigned long long)(t[i] - in[i]), (unsigned long long)in[i]);
    }
    dprintf(STDERR_FILENO, "%s\n", line);
}

HWC_EXPORT int MPI_Finalize(void)
{
    hwc_frame f = hwc_enter();
    fenv_t app;
    feholdexcept(&app);
    hwc_freeze();
    fesetenv(&app);
    int rc = PMPI_Finalize();
    hwc_exit(f, HWC_F_MPI_Finalize);
    if (!hwc_read_by_level) {
        feholdexcept(&app);
        hwc_report_line();
        fesetenv(&app);
    }
    for (struct hwc_thread *t = hwc_threads; t; t = t->next) {
        hwc_close_thread(t);
    }
    return rc;
}
