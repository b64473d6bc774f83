/*
 * overflow.c - what one sample costs the sampled thread, with an empty signal handler, by the way
 * the signal comes (the hwc tool's sampled mode uses the first):
 *   perf         a task-clock perf event of the thread, sampling every 1/HZ s, its overflow a
 *                real-time signal to the thread (O_ASYNC, F_SETOWN_EX, F_SETSIG), kernel included
 *   perf-user    the same, overflows in user space only (exclude_kernel)
 *   helper       a helper thread waking every 1/HZ s of wall time (clock_nanosleep, absolute)
 *                and sending the signal with pthread_sigqueue (the accounting tool's way)
 *   ring         no signal: the kernel writes each overflow (IP, TID) into the event's ring
 *                buffer (1 + 64 pages, not read: a helper thread would), counted as CPU time x HZ;
 *                ring-callchain adds the kernel's user-space call chain (frame pointers) to each
 * It times a busy loop of fixed length (CLOCK_THREAD_CPUTIME_ID) without, then with, the
 * signals, and prints (with - without) / signals received: microseconds per sample.
 *   cc -O2 -o overflow overflow.c -lpthread && ./overflow perf 10000
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile long received;
static pthread_t target;
static long period_ns;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc;
    received++;
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double loop_s(long n)
{
    double t0 = cpu_s();
    volatile double x = 1;
    for (long i = 0; i < n; i++) {
        x = x * 1.0000001 + 1e-9;
    }
    return cpu_s() - t0;
}

static void *helper(void *arg)
{
    (void)arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    union sigval v = {0};
    for (;;) {
        next.tv_nsec += period_ns;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
        pthread_sigqueue(target, SIGRTMIN + 4, v);
    }
    return NULL;
}

static struct perf_event_mmap_page *ring;

static int perf_overflows(int exclude_kernel, int ring_sample_type)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.exclude_kernel = (unsigned)exclude_kernel;
    a.sample_period = (uint64_t)period_ns;
    a.wakeup_events = 1;
    a.disabled = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (ring_sample_type) {
        a.sample_type = (uint64_t)ring_sample_type;
        close(fd);
        a.wakeup_events = 1000000; /* nobody is woken */
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
        void *m = fd < 0 ? MAP_FAILED
                         : mmap(NULL, (size_t)sysconf(_SC_PAGESIZE) * 65, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
            perror("perf ring");
            return -1;
        }
        ring = m;
        return 0;
    }
    struct f_owner_ex owner = {F_OWNER_TID, gettid()};
    if (fd < 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, SIGRTMIN + 4) != 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) != 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        perror("perf_event_open");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "perf";
    int hz = argc > 2 ? atoi(argv[2]) : 10000;
    if (hz <= 0 || hz > 100000) {
        fprintf(stderr, "usage: %s perf|perf-user|helper|ring|ring-callchain [HZ]\n", argv[0]);
        return 2;
    }
    period_ns = 1000000000L / hz;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGRTMIN + 4, &sa, NULL);
    long n = 200000000;
    double without = loop_s(n);
    if (strcmp(how, "helper") == 0) {
        target = pthread_self();
        pthread_t t;
        pthread_create(&t, NULL, helper, NULL);
    } else if (perf_overflows(strcmp(how, "perf-user") == 0,
                              strcmp(how, "ring") == 0 ? PERF_SAMPLE_IP | PERF_SAMPLE_TID
                              : strcmp(how, "ring-callchain") == 0 ? PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN
                                                                  : 0) != 0) {
        return 1;
    }
    double with = loop_s(n);
    if (ring) {
        /* Nobody reads the buffer, which fills: the overflows are the thread's CPU time over the period. */
        received = (long)(with * hz);
    }
    printf("%-9s %6d/s  loop %.4f s without, %.4f s with, %ld samples: %.2f us per sample\n", how, hz, without,
           with, received, received ? 1e6 * (with - without) / (double)received : 0.0);
    return 0;
}
