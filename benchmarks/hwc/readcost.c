/*
 * readcost.c - what reading 2 hardware counters (instructions, cycles) costs on this machine, every
 * way there is, measured side by side in one process:
 *
 *   empty             a call through a function pointer that does nothing (the loop's own cost)
 *   rdtsc             one rdtsc (about what an untrapped rdpmc costs: both take a few dozen cycles)
 *   getppid           syscall(SYS_getppid): the floor of any system call
 *   read-1            read(2) of one counter
 *   read-group-2      read(2) of a group leader with PERF_FORMAT_GROUP: both counters (hwc's `read`)
 *   rdpmc-raw-1       the bare rdpmc instruction
 *   rdpmc-1, rdpmc-2  user-space reads through the perf mmap page, seqlock protocol (hwc's `rdpmc`)
 *   ioctl-toggle      PERF_EVENT_IOC_ENABLE + PERF_EVENT_IOC_DISABLE of an "in MPI" group beside the
 *                     always counting group: what an MPI call would cost if the in-MPI counts came
 *                     from switching a group on and off instead of reading counters
 *   prctl-toggle      prctl(PR_TASK_PERF_EVENTS_ENABLE) + prctl(PR_TASK_PERF_EVENTS_DISABLE), the
 *                     same; measured in a child process that owns nothing but that group (the prctl
 *                     switches every event the calling task created)
 *   papi-read         PAPI_read of PAPI_TOT_INS + PAPI_TOT_CYC as PAPI set itself up (its fast read,
 *                     i.e. rdpmc, when it detected it); papi-read-ts the same with PAPI_read_ts;
 *                     papi-read-syscall with PAPI's fast read switched off (read(2) of its group)
 *   call              an empty function, called directly
 *   hwc-call-*        the same function wrapped as the hwc level wraps an MPI function (hwc_enter,
 *                     the call, hwc_exit from profilers/hwc/src/main/c/hwc.h: two reads of the counters,
 *                     the TSC, the per-function sums), with the counters read by read(2), by rdpmc,
 *                     by a fake reader (the rdpmc path with rdtsc in place of the trapped
 *                     instruction: what the wrapper costs where rdpmc is not trapped), and by none
 *                     (the rdpmc path without the instruction: the bookkeeping alone)
 *
 * Blocks of about BLOCK-US microseconds alternate between the variants (ABCABC...), ROUNDS times;
 * each figure is the median over rounds of ns per operation, with the min and max; hwc-call-* also
 * minus `call`, round by round. Each block runs with only its own counters enabled (counted in the
 * column "ctrs"), because on a VM whose hypervisor emulates the PMU a trapped access can cost more
 * with more counters enabled. "read(2)/op" is the read system calls per operation (/proc/self/io
 * syscr): it tells whether PAPI read in user space. "instr/iter" checks that a reader counts: the
 * instructions it reports over a loop of exactly 2 instructions per iteration.
 *
 *   readcost [ROUNDS] [BLOCK-US]          (default 201 200; benchmarks/hwc/run.sh builds and runs it)
 *
 * Short blocks: on a busy 2-vCPU machine few of them are cut by another process's time slice, and
 * the median drops those that are (2 ms blocks gave run-to-run spreads of 60 % at load 5.5).
 *
 * PAPI is built in when papi.h is there (Debian: libpapi-dev). Debian 12's libpfm4 (4.13) knows no
 * CPU after AMD Zen 4: when PAPI's perf_event component finds "no default PMU" on an AMD CPU of
 * family 1Ah or later, this program runs itself again with LIBPFM_FORCE_PMU=amd64_fam19h_zen3,
 * whose PAPI_TOT_INS and PAPI_TOT_CYC (PMCx0C0, PMCx076) are the same events on Zen 5, and says so.
 */
#define _GNU_SOURCE
#include <stdint.h>

static inline uint64_t bench_pmc(uint32_t counter);
#define HWC_PMC(counter) bench_pmc(counter)
#include "hwc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <x86intrin.h>

#if __has_include(<papi.h>)
#include <papi.h>
#define HAVE_PAPI 1
#else
#define HAVE_PAPI 0
#endif

/* ---------------------------------------------------------------- what hwc.h needs */

__thread struct hwc_thread *hwc_self __attribute__((tls_model("initial-exec")));
int hwc_method = HWC_READ;

struct hwc_thread *hwc_thread_new(void)
{
    return NULL; /* main() sets hwc_self before any hwc-call-* block */
}

/* What hwc_rdpmc executes for the PMC: rdpmc, or for hwc-call-fake rdtsc, or for hwc-call-noread nothing. */
enum pmc_is { PMC_RDPMC, PMC_RDTSC, PMC_NONE };
static enum pmc_is bench_pmc_is = PMC_RDPMC;

static inline uint64_t bench_pmc(uint32_t counter)
{
    return bench_pmc_is == PMC_RDPMC ? hwc_pmc(counter) : bench_pmc_is == PMC_RDTSC ? __rdtsc() : 0;
}

/* ---------------------------------------------------------------- the counters */

/* Which counters a block runs with (the others are disabled for it). */
enum counters { C_GROUP, C_SINGLE, C_GROUP_AND_IN, C_PAPI, C_CHILD };
static const char *const counters_text[] = {"2", "1", "2+2", "2", "2"};

static int fd_group, fd_cycles;          /* instructions (leader) + cycles, PERF_FORMAT_GROUP */
static int fd_single;                    /* instructions alone */
static int fd_in;                        /* the toggled "in MPI" group's leader (instructions + cycles) */
static struct perf_event_mmap_page *page_ins, *page_cyc, *page_single;

/* A group of instructions and cycles; the leader's fd, -1 if it does not open. */
static int open_pair(int disabled, int *cycles)
{
    int leader = hwc_perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, disabled);
    *cycles = leader < 0 ? -1 : hwc_perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, leader, disabled);
    return *cycles < 0 ? -1 : leader;
}

static struct perf_event_mmap_page *map_page(int fd)
{
    void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void switch_group(int leader, int on)
{
    ioctl(leader, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

static void papi_switch(int on);

/* Only the counters `c` stay enabled. */
static void use_counters(enum counters c)
{
    switch_group(fd_in, 0);
    switch_group(fd_group, c == C_GROUP || c == C_GROUP_AND_IN);
    switch_group(fd_single, c == C_SINGLE);
    papi_switch(c == C_PAPI);
}

/* ---------------------------------------------------------------- the variants */

static volatile uint64_t sink;

static void v_empty(void)
{
}

static void v_rdtsc(void)
{
    sink = __rdtsc();
}

static void v_getppid(void)
{
    sink = (uint64_t)syscall(SYS_getppid);
}

static void v_read_1(void)
{
    uint64_t v[2];
    if (read(fd_single, v, sizeof v) == (ssize_t)sizeof v) {
        sink = v[1];
    }
}

static void v_read_group_2(void)
{
    uint64_t v[3];
    if (read(fd_group, v, sizeof v) == (ssize_t)sizeof v) {
        sink = v[1] + v[2];
    }
}

static void v_rdpmc_raw_1(void)
{
    uint32_t index = page_single->index;
    if (index) {
        sink = hwc_pmc(index - 1);
    }
}

static void v_rdpmc_1(void)
{
    sink = hwc_rdpmc(page_single);
}

static void v_rdpmc_2(void)
{
    sink = hwc_rdpmc(page_ins) + hwc_rdpmc(page_cyc);
}

static void v_ioctl_toggle(void)
{
    switch_group(fd_in, 1);
    switch_group(fd_in, 0);
}

static void v_prctl_toggle(void)
{
    prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0);
    prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0);
}

/* What hwc-call-* wrap: nothing, out of line. */
static __attribute__((noinline)) int pmpi_nothing(void)
{
    __asm__ __volatile__("" ::: "memory");
    return 0;
}

static void v_call(void)
{
    sink = (uint64_t)pmpi_nothing();
}

static void v_hwc_call(void)
{
    hwc_frame f = hwc_enter();
    int rc = pmpi_nothing();
    hwc_exit(f, 0);
    sink = (uint64_t)rc;
}

#if HAVE_PAPI
static int papi_set = PAPI_NULL;
static PAPI_component_info_t *papi_component;
static int papi_fast;                   /* fast_counter_read as PAPI set it up */
static int papi_running;
static char papi_note[PAPI_HUGE_STR_LEN + 128];

static void v_papi_read(void)
{
    long long v[2];
    PAPI_read(papi_set, v);
    sink = (uint64_t)(v[0] + v[1]);
}

static void v_papi_read_ts(void)
{
    long long v[2], ts;
    PAPI_read_ts(papi_set, v, &ts);
    sink = (uint64_t)(v[0] + v[1] + ts);
}

static void papi_switch(int on)
{
    if (papi_set == PAPI_NULL || on == papi_running) {
        return;
    }
    long long v[2];
    if (on ? PAPI_start(papi_set) == PAPI_OK : PAPI_stop(papi_set, v) == PAPI_OK) {
        papi_running = on;
    }
}

/*
 * PAPI with an event set of PAPI_TOT_INS and PAPI_TOT_CYC (stopped); 0, and papi_note says why,
 * if not possible. libpfm4 reads LIBPFM_FORCE_PMU once per process: to force it, this program
 * runs itself again with it set.
 */
static int papi_setup(char **argv)
{
    if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
        snprintf(papi_note, sizeof papi_note, "PAPI_library_init failed");
        return 0;
    }
    int cidx = PAPI_get_component_index("perf_event");
    papi_component = cidx < 0 ? NULL : (PAPI_component_info_t *)PAPI_get_component_info(cidx);
    if (!papi_component) {
        snprintf(papi_note, sizeof papi_note, "PAPI has no perf_event component");
        return 0;
    }
    if (papi_component->disabled) {
        snprintf(papi_note, sizeof papi_note, "PAPI's perf_event component is disabled: %s",
                 papi_component->disabled_reason);
        if (!getenv("LIBPFM_FORCE_PMU") && hwc_amd_family() >= 0x1a &&
            strstr(papi_component->disabled_reason, "no default PMU")) {
            setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen3", 1);
            execv("/proc/self/exe", argv);
        }
        return 0;
    }
    int rc;
    if ((rc = PAPI_create_eventset(&papi_set)) != PAPI_OK || (rc = PAPI_add_event(papi_set, PAPI_TOT_INS)) != PAPI_OK ||
        (rc = PAPI_add_event(papi_set, PAPI_TOT_CYC)) != PAPI_OK) {
        snprintf(papi_note, sizeof papi_note, "PAPI: %s", PAPI_strerror(rc));
        papi_set = PAPI_NULL;
        return 0;
    }
    papi_fast = (int)papi_component->fast_counter_read;
    const char *forced = getenv("LIBPFM_FORCE_PMU");
    snprintf(papi_note, sizeof papi_note, "PAPI %d.%d.%d, perf_event component, fast_counter_read=%d%s%s",
             PAPI_VERSION_MAJOR(PAPI_VERSION), PAPI_VERSION_MINOR(PAPI_VERSION), PAPI_VERSION_REVISION(PAPI_VERSION),
             papi_fast, forced ? ", LIBPFM_FORCE_PMU=" : "", forced ? forced : "");
    return 1;
}
#else
static void papi_switch(int on)
{
    (void)on;
}
#endif

/* ---------------------------------------------------------------- the prctl child */

/* prctl-toggle runs in a child that owns one group; a block is a request over a pipe. */
static int child_in = -1, child_out = -1;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void child_loop(int in, int out)
{
    int cycles;
    if (open_pair(1, &cycles) < 0) {
        _exit(1);
    }
    long n;
    while (read(in, &n, sizeof n) == (ssize_t)sizeof n && n > 0) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++) {
            v_prctl_toggle();
        }
        double ns = (now_ns() - t0) / (double)n;
        if (write(out, &ns, sizeof ns) != (ssize_t)sizeof ns) {
            _exit(1);
        }
    }
    _exit(0);
}

static int child_start(void)
{
    int to[2], from[2];
    if (pipe(to) || pipe(from)) {
        return 0;
    }
    pid_t pid = fork();
    if (pid == 0) {
        child_loop(to[0], from[1]);
    }
    close(to[0]);
    close(from[1]);
    if (pid < 0) {
        return 0;
    }
    child_in = to[1];
    child_out = from[0];
    return 1;
}

static double child_block(long n)
{
    double ns = -1;
    if (write(child_in, &n, sizeof n) != (ssize_t)sizeof n || read(child_out, &ns, sizeof ns) != (ssize_t)sizeof ns) {
        fprintf(stderr, "readcost: the prctl child failed\n");
        exit(1);
    }
    return ns;
}

/* ---------------------------------------------------------------- measuring */

enum { MAX_ROUNDS = 201, MAX_VARIANTS = 24 };

struct variant {
    const char *name;
    void (*op)(void);
    enum counters counters;
    enum pmc_is pmc;             /* for hwc_rdpmc */
    int method;                  /* for hwc_read: HWC_READ or HWC_RDPMC */
    int papi_fast;               /* PAPI's fast_counter_read for this block */
    long per_block;
    struct variant *base;        /* hwc-call-*: the figure minus this variant's, round by round */
    double ns[MAX_ROUNDS];
    double reads;                /* read(2) calls per operation */
    double per_iter;             /* instructions per iteration of the check loop; < 0: not checked */
};

static struct variant variants[MAX_VARIANTS];
static int nvariants;

static struct variant *add(const char *name, void (*op)(void), enum counters counters)
{
    struct variant *v = &variants[nvariants++];
    v->name = name;
    v->op = op;
    v->counters = counters;
    v->pmc = PMC_RDPMC;
    v->method = HWC_READ;
    v->per_iter = -1;
    return v;
}

static void prepare(const struct variant *v)
{
    use_counters(v->counters);
    bench_pmc_is = v->pmc;
    hwc_method = v->method;
#if HAVE_PAPI
    if (papi_component) {
        papi_component->fast_counter_read = (unsigned)v->papi_fast;
    }
#endif
}

static double block(struct variant *v, long n)
{
    if (v->counters == C_CHILD) {
        return child_block(n);
    }
    prepare(v);
    void (*op)(void) = v->op;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        op();
    }
    return (now_ns() - t0) / (double)n;
}

/* This process's read system calls so far. */
static long read_calls(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    long n = -1;
    char line[128];
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "syscr: %ld", &n) == 1) {
            break;
        }
    }
    if (f) {
        fclose(f);
    }
    return n;
}

static double reads_per_op(struct variant *v)
{
    if (v->counters == C_CHILD) {
        return 0; /* prctl(2) only */
    }
    long looking = read_calls();
    looking = read_calls() - looking;
    const long n = 200;
    prepare(v);
    long a = read_calls();
    for (long i = 0; i < n; i++) {
        v->op();
    }
    long b = read_calls();
    return a < 0 ? -1 : (double)(b - a - looking) / (double)n;
}

/* Exactly two instructions per iteration. */
static __attribute__((noinline)) void two_per_iteration(long n)
{
    __asm__ __volatile__("1:\n\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

/* The instructions variant v's reader reports over ITERS iterations of two instructions, per iteration. */
static double check(struct variant *v)
{
    const long iters = 1000000;
    uint64_t a[HWC_MAX], b[HWC_MAX];
    prepare(v);
    if (v->op == v_hwc_call && v->pmc == PMC_RDPMC) {
        hwc_read(hwc_self, a);
        two_per_iteration(iters);
        hwc_read(hwc_self, b);
#if HAVE_PAPI
    } else if (v->op == v_papi_read) {
        long long x[2], y[2];
        PAPI_read(papi_set, x);
        two_per_iteration(iters);
        PAPI_read(papi_set, y);
        a[0] = (uint64_t)x[0];
        b[0] = (uint64_t)y[0];
#endif
    } else {
        return -1;
    }
    return (double)(b[0] - a[0]) / (double)iters;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v[0..n) and returns its median. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The first line of `file` that starts with `key` (after it and ": ", for cpuinfo), or "?". */
static void first_line(const char *file, const char *key, char *out, size_t size)
{
    FILE *f = fopen(file, "r");
    char line[256];
    snprintf(out, size, "?");
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, strlen(key)) == 0) {
            const char *v = strchr(line, ':') && *key ? strchr(line, ':') + 2 : line;
            snprintf(out, size, "%s", v);
            out[strcspn(out, "\n")] = 0;
            break;
        }
    }
    if (f) {
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 201;
    double block_us = argc > 2 ? atof(argv[2]) : 200;
    if (rounds < 1 || rounds > MAX_ROUNDS || block_us <= 0) {
        fprintf(stderr, "usage: readcost [ROUNDS 1..%d] [BLOCK-US]\n", MAX_ROUNDS);
        return 2;
    }
    int in_cycles;
    fd_group = open_pair(0, &fd_cycles);
    fd_single = hwc_perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, 1);
    fd_in = open_pair(1, &in_cycles);
    if (fd_group < 0 || fd_single < 0 || fd_in < 0) {
        fprintf(stderr, "readcost: perf_event_open of instructions and cycles failed: %s (is there a PMU? try `perf "
                        "stat -e instructions true`)\n", strerror(errno));
        return 1;
    }
    page_ins = map_page(fd_group);
    page_cyc = map_page(fd_cycles);
    page_single = map_page(fd_single);
    int rdpmc = page_ins && page_cyc && page_single && page_ins->cap_user_rdpmc && page_cyc->cap_user_rdpmc &&
                page_single->cap_user_rdpmc;
    struct hwc_thread *t = calloc(1, sizeof *t);
    if (!t) {
        return 1;
    }
    t->n = 2;
    t->leader = fd_group;
    t->fd[0] = fd_group;
    t->fd[1] = fd_cycles;
    t->page[0] = page_ins;
    t->page[1] = page_cyc;
    hwc_self = t;

    const char *papi = "PAPI: not built in (no papi.h; Debian: libpapi-dev)";
#if HAVE_PAPI
    int with_papi = papi_setup(argv);
    papi = papi_note;
#endif
    add("empty", v_empty, C_GROUP);
    add("rdtsc", v_rdtsc, C_GROUP);
    add("getppid", v_getppid, C_GROUP);
    add("read-1", v_read_1, C_SINGLE);
    add("read-group-2", v_read_group_2, C_GROUP);
    if (rdpmc) {
        add("rdpmc-raw-1", v_rdpmc_raw_1, C_SINGLE);
        add("rdpmc-1", v_rdpmc_1, C_SINGLE);
        add("rdpmc-2", v_rdpmc_2, C_GROUP);
    }
    add("ioctl-toggle", v_ioctl_toggle, C_GROUP_AND_IN);
    if (child_start()) {
        add("prctl-toggle", v_prctl_toggle, C_CHILD);
    }
#if HAVE_PAPI
    if (with_papi) {
        add("papi-read", v_papi_read, C_PAPI)->papi_fast = papi_fast;
        add("papi-read-ts", v_papi_read_ts, C_PAPI)->papi_fast = papi_fast;
        if (papi_fast) {
            add("papi-read-syscall", v_papi_read, C_PAPI);
        }
    }
#endif
    struct variant *call = add("call", v_call, C_GROUP);
    add("hwc-call-read", v_hwc_call, C_GROUP)->base = call;
    if (rdpmc) {
        struct variant *v = add("hwc-call-rdpmc", v_hwc_call, C_GROUP);
        v->method = HWC_RDPMC;
        v->base = call;
        v = add("hwc-call-fake", v_hwc_call, C_GROUP);
        v->method = HWC_RDPMC;
        v->pmc = PMC_RDTSC;
        v->base = call;
        v = add("hwc-call-noread", v_hwc_call, C_GROUP);
        v->method = HWC_RDPMC;
        v->pmc = PMC_NONE;
        v->base = call;
    }

    char load0[256], load1[256];
    first_line("/proc/loadavg", "", load0, sizeof load0);
    for (int i = 0; i < nvariants; i++) {
        struct variant *v = &variants[i];
        v->per_iter = check(v);
        v->reads = reads_per_op(v);
        double probe = block(v, 50);
        v->per_block = (long)(block_us * 1e3 / (probe > 1 ? probe : 1));
        v->per_block = v->per_block < 50 ? 50 : v->per_block;
        block(v, v->per_block / 10 + 1); /* warm up */
    }
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < nvariants; i++) {
            variants[i].ns[r] = block(&variants[i], variants[i].per_block);
        }
    }
    first_line("/proc/loadavg", "", load1, sizeof load1);

    char cpu[256];
    first_line("/proc/cpuinfo", "model name", cpu, sizeof cpu);
    printf("readcost: %s, %ld cpus, %d rounds of ~%.0f us blocks per variant; loadavg before: %s; after: %s\n", cpu,
           sysconf(_SC_NPROCESSORS_ONLN), rounds, block_us, load0, load1);
    printf("%s; rdpmc from user space: %s\n", papi, rdpmc ? "allowed (cap_user_rdpmc)" : "not allowed");
    printf("%-18s %4s %10s  %-23s %9s %10s %10s  %s\n", "variant", "ctrs", "ns/op", "[min .. max]", "ops/block",
           "read(2)/op", "instr/iter", "minus call [min .. max]");
    double delta[MAX_VARIANTS][MAX_ROUNDS];
    for (int i = 0; i < nvariants; i++) {
        for (int r = 0; r < rounds && variants[i].base; r++) {
            delta[i][r] = variants[i].ns[r] - variants[i].base->ns[r];
        }
    }
    for (int i = 0; i < nvariants; i++) {
        struct variant *v = &variants[i];
        double med = median(v->ns, rounds);
        char range[64], per_iter[16] = "-", minus[64] = "";
        snprintf(range, sizeof range, "[%.1f .. %.1f]", v->ns[0], v->ns[rounds - 1]);
        if (v->per_iter >= 0) {
            snprintf(per_iter, sizeof per_iter, "%.3f", v->per_iter);
        }
        if (v->base) {
            double d = median(delta[i], rounds);
            snprintf(minus, sizeof minus, "%+.1f [%+.1f .. %+.1f]", d, delta[i][0], delta[i][rounds - 1]);
        }
        printf("%-18s %4s %10.1f  %-23s %9ld %10.2f %10s  %s\n", v->name, counters_text[v->counters], med, range,
               v->per_block, v->reads, per_iter, minus);
    }
    if (child_in >= 0) {
        long stop = 0;
        if (write(child_in, &stop, sizeof stop) == (ssize_t)sizeof stop) {
            wait(NULL);
        }
    }
    return 0;
}
