/*
 * rec_periodic.c - JPMPI_PROFILE_DUMP_EVERY=N: every N seconds the rank writes its figures so far
 * (ranks/rank-R.bin, state FLUSH), as SIGUSR1 does, so that a job killed without warning (SIGKILL,
 * a lost node, a hard time limit) leaves its last snapshot for `jpmpi report DIR`.
 *
 * A thread of the recorder's own does it, started when the library is loaded (only with the
 * setting): it sleeps to its next deadline, and, while recording runs, calls jp_dump, which takes no
 * lock and reads each thread's counters once (rec_snapshot.c). Nothing is added to a call's path,
 * the thread makes no MPI call, and it takes no signal (all are blocked in it), so a signal's dump
 * never interrupts its own. The end states' dumps wait for a periodic one in flight
 * (jp_periodic_quiesce), so that the final figures are never skipped or replaced by a FLUSH.
 */
#define _GNU_SOURCE
#include "recorder_private.h"
#include "jpmpi_settings.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The longest period taken: a week. */
#define JP_PERIOD_MAX 604800L

/* 1 while the thread has decided to dump and until its dump is written (Dekker-style with the end
 * states: each side stores its own flag, fences, then reads the other's). */
static volatile int jp_periodic_busy;

static void jp_periodic_say_error(void);

void jp_periodic_quiesce(void)
{
    jp_periodic_say_error();
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    while (__atomic_load_n(&jp_periodic_busy, __ATOMIC_ACQUIRE)) {
        struct timespec pause = {0, 100000};
        nanosleep(&pause, NULL);
    }
}

/* Recording has ended (or is ending): no more periodic dumps. */
static int jp_recording_over(void)
{
    return jp_ended || jp_end_ticks != 0;
}

static void *jp_periodic_main(void *arg)
{
    long period = (long)(intptr_t)arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (;;) {
        next.tv_sec += period;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {
        }
        if (!jp_initialized) {
            continue; /* MPI_Init has not returned yet */
        }
        __atomic_store_n(&jp_periodic_busy, 1, __ATOMIC_SEQ_CST);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        int over = jp_recording_over();
        if (!over) {
            jp_dump(JP_FLUSH, JP_FLUSH_PERIODIC);
        }
        __atomic_store_n(&jp_periodic_busy, 0, __ATOMIC_RELEASE);
        if (over) {
            return NULL;
        }
    }
}

/*
 * A bad value: no dumps, and one line, by world rank 0 alone, once its rank is known: a thread that
 * only waits for MPI_Init to return, or, in a job too short for it to wake, the end's dump.
 */
static char jp_periodic_error[256];
static int jp_periodic_error_said;

static void jp_periodic_say_error(void)
{
    if (jp_periodic_error[0] && jp_initialized && jp_world_rank == 0
        && !__atomic_exchange_n(&jp_periodic_error_said, 1, __ATOMIC_ACQ_REL)) {
        ssize_t n = write(STDERR_FILENO, jp_periodic_error, strlen(jp_periodic_error));
        (void)n;
    }
}

static void *jp_periodic_complain(void *arg)
{
    (void)arg;
    struct timespec pause = {0, 50000000};
    while (!jp_initialized && !jp_ended) {
        nanosleep(&pause, NULL);
    }
    jp_periodic_say_error();
    return NULL;
}

/* The period in seconds from the setting's text, or 0 (and the reason in jp_periodic_error). */
static long jp_period(const char *text)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno == 0 && end != text && *end == 0 && text[0] >= '0' && text[0] <= '9' && v >= 1
        && v <= JP_PERIOD_MAX) {
        return v;
    }
    snprintf(jp_periodic_error, sizeof jp_periodic_error,
             "jpmpi: profile: %s=%.40s%s is not a whole number of seconds from 1 to %ld: no periodic dumps\n",
             JPMPI_SETTING_PROFILE_DUMP_EVERY, text, strlen(text) > 40 ? "..." : "", JP_PERIOD_MAX);
    for (char *p = jp_periodic_error; p[0] && p[1]; p++) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            *p = '?';
        }
    }
    return 0;
}

/* At load: the thread, if the setting asks for one. */
__attribute__((constructor)) static void jp_periodic_start(void)
{
    const char *text = getenv(JPMPI_SETTING_PROFILE_DUMP_EVERY);
    if (!text || !*text) {
        return;
    }
    long period = jp_period(text);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits it: no signal reaches it */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_t t;
    if (pthread_create(&t, &attr, period ? jp_periodic_main : jp_periodic_complain, (void *)(intptr_t)period) != 0
        && period) {
        dprintf(STDERR_FILENO, "jpmpi: profile: cannot start the thread of %s: no periodic dumps\n",
                JPMPI_SETTING_PROFILE_DUMP_EVERY);
    }
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}
