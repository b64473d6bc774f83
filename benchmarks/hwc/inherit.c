/*
 * inherit.c - can hwc's sampled mode find every thread without a wrapper? (issue 24, option b)
 *
 * One task-clock event on the main thread with inherit (threads created later get a copy),
 * sigtrap (an overflow is a SIGTRAP, TRAP_PERF, to the thread that overflowed; Linux >= 5.13) and
 * remove_on_exec (which sigtrap requires with inherit), then, for a thread that existed before,
 * one more event opened on its tid from /proc/self/task. Four threads spin for SPIN ms of CPU:
 * one created before the events, three after. Printed per thread: the SIGTRAPs it got, what its
 * own counting event (opened from the handler at its first SIGTRAP, as a sampler would) counted,
 * and what one read(2) of the inherited event gives (the sum over the threads, not the thread's).
 *
 *   cc -O2 -o inherit benchmarks/hwc/inherit.c -lpthread && ./inherit [SPIN-MS] [PER-SECOND]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

#define THREADS 4
static __thread int slot = -1;
static volatile long traps[THREADS + 1];
static volatile int own_fd[THREADS + 1];
static volatile long foreign;
static double spin_ms = 300;
static volatile int go;

static int open_clock(pid_t tid, uint64_t period, int sampling)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.exclude_kernel = !sampling; /* overflows in the kernel too, as hwc's task-clock leader (the spin's
                                     clock_gettime is a system call) */
    if (sampling) {
        a.sample_period = period;
        a.inherit = 1;
        a.sigtrap = 1;
        a.remove_on_exec = 1;
        a.sig_data = 0x6877630a;
    }
    return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* si_perf_data (attr.sig_data), which glibc 2.36 does not name: the word after si_addr. */
static unsigned long perf_data(const siginfo_t *si)
{
    unsigned long v;
    memcpy(&v, (const char *)&si->si_addr + sizeof(void *), sizeof v);
    return v;
}

static void on_trap(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    if (si->si_code != TRAP_PERF || perf_data(si) != 0x6877630a || slot < 0) {
        foreign++;
        return;
    }
    traps[slot]++;
    if (own_fd[slot] < 0) {
        own_fd[slot] = open_clock(0, 0, 0); /* the thread's own counts, from its first overflow */
    }
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void *worker(void *arg)
{
    slot = (int)(intptr_t)arg;
    while (!go) {
        usleep(1000);
    }
    double t0 = cpu_ms();
    while (cpu_ms() - t0 < spin_ms) {
    }
    uint64_t own = 0;
    if (own_fd[slot] >= 0 && read(own_fd[slot], &own, sizeof own) != (ssize_t)sizeof own) {
        own = 0;
    }
    printf("thread %d (%s): %ld SIGTRAPs, own counter from the first one %.1f ms of %.1f ms spun\n", slot,
           slot == 1 ? "created before the events, found in /proc/self/task" : "created after, inherited",
           traps[slot], (double)own * 1e-6, spin_ms);
    return NULL;
}

int main(int argc, char **argv)
{
    spin_ms = argc > 1 ? atof(argv[1]) : 300;
    double hz = argc > 2 ? atof(argv[2]) : 100;
    for (int i = 0; i <= THREADS; i++) {
        own_fd[i] = -1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trap;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGTRAP, &sa, NULL);
    pthread_t th[THREADS + 1];
    pthread_create(&th[1], NULL, worker, (void *)(intptr_t)1); /* before the events */
    usleep(20000);
    uint64_t period = (uint64_t)(1e9 / hz);
    int fd = open_clock(0, period, 1);
    if (fd < 0) {
        perror("perf_event_open(task-clock, inherit, sigtrap, remove_on_exec)");
        return 1;
    }
    int others = 0;
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) {
        pid_t tid = (pid_t)atoi(e->d_name);
        if (tid > 0 && tid != gettid()) {
            others += open_clock(tid, period, 1) >= 0;
        }
    }
    if (d) {
        closedir(d);
    }
    printf("kernel accepts inherit+sigtrap+remove_on_exec on task-clock; %d earlier thread(s) opened by tid\n", others);
    for (int i = 2; i <= THREADS; i++) {
        pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
    }
    go = 1;
    for (int i = 1; i <= THREADS; i++) {
        pthread_join(th[i], NULL);
    }
    uint64_t sum = 0;
    if (read(fd, &sum, sizeof sum) != (ssize_t)sizeof sum) {
        sum = 0;
    }
    printf("read(2) of the inherited event: %.1f ms (the main thread's and the %d threads' after it, summed); "
           "signals not ours: %ld\n", (double)sum * 1e-6, THREADS - 1, foreign);
    return 0;
}
