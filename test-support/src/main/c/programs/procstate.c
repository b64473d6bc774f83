/*
 * procstate: everything a program can observe of its own process, at each checkpoint of a short MPI
 * run, for comparing a run without jpmpi with runs through jpmpi's levels (issue 27). 2 or more
 * ranks (an even count: ranks pair up for point-to-point).
 *
 * The checkpoints, in order:
 *   init        at MPI_Init's return
 *   p2p         after MPI_Send, MPI_Recv, MPI_Sendrecv with the partner rank
 *   collective  after MPI_Barrier, MPI_Bcast, MPI_Allreduce (double), MPI_Allgather
 *   nonblocking after MPI_Irecv, MPI_Isend, MPI_Waitall, MPI_Iallreduce, MPI_Wait
 *   pcontrol    after MPI_Pcontrol(0), MPI_Pcontrol(1)
 *   finalize    just before MPI_Finalize
 *   finalized   after MPI_Finalize
 *
 * Each rank writes its lines into procstate-<rank>.txt in the working directory after
 * MPI_Finalize (kept in memory until then: no file of its own is open while it observes, and no
 * line of two ranks can interleave), each line "<checkpoint> <item> <value>", and prints one line
 * "procstate rank R lines N" on stdout. Items (a value a tool could change, never one that differs
 * between two runs of the same job: no pid, no address):
 *   signal <n>        disposition of signal n: default | ignore | handler:<object defining it>,
 *                     and its SA_ flags (of a handler; SA_NOCLDWAIT only of the others)
 *   blocked, pending  the calling thread's blocked and pending signals
 *   altstack          the signal stack of the calling thread
 *   rlimit <name>     soft and hard limit
 *   umask, cwd, nice, sched, dumpable, comm, timer <which>
 *   env <name>        the environment, sorted by name
 *   locale <category> the C library's global locale per category; thread-locale (uselocale)
 *   affinity          the CPUs the thread may run on
 *   stdio <stream>    buffering mode (none, line, full), orientation; fd <n>: status and
 *                     descriptor flags of 0, 1, 2
 *   errno <call>      "kept" when errno, set to a sentinel before the call, is the sentinel after
 *                     a successful call, else "set" (MPI does not promise to leave errno alone: a
 *                     test compares only the calls the MPI library leaves it for)
 *   fp mxcsr, fp x87cw, fp x87sw, fp except, fp round   (x86-64: MXCSR and the x87 control and
 *                     status words; fenv's raised exceptions and rounding mode). The exception
 *                     flags are cleared after each checkpoint: each checkpoint's flags are those
 *                     raised since the one before (init's: since main began).
 *   owned threads, owned fds   what the process has of its own tools' (threads, open descriptors):
 *                     printed for the record, not a state the program set
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <libgen.h>
#include <locale.h>
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <wchar.h>

extern char **environ;

/* The kernel's (asm/signal.h): glibc sets it on every disposition it installs, and says it back. */
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

#define SENTINEL 7919

static char *out;
static size_t used, room;
static int nlines;

static void emit(const char *checkpoint, const char *fmt, ...)
{
    char line[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(line, sizeof line, "%s ", checkpoint);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    if (used + len + 2 > room) {
        room = (room + len + 2) * 2;
        out = realloc(out, room);
        if (out == NULL) {
            abort();
        }
    }
    memcpy(out + used, line, len);
    used += len;
    out[used++] = '\n';
    nlines++;
}

static void signals(const char *cp)
{
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction sa;
        if (sigaction(sig, NULL, &sa) != 0) {
            continue; /* SIGKILL's and SIGSTOP's can be read; the C library's own (32, 33) cannot */
        }
        void *h = (sa.sa_flags & SA_SIGINFO) ? (void *)sa.sa_sigaction : (void *)sa.sa_handler;
        char what[512];
        if (h == (void *)SIG_DFL) {
            snprintf(what, sizeof what, "default");
        } else if (h == (void *)SIG_IGN) {
            snprintf(what, sizeof what, "ignore");
        } else {
            Dl_info info;
            if (dladdr(h, &info) && info.dli_fname) {
                char name[PATH_MAX];
                snprintf(name, sizeof name, "%s", info.dli_fname);
                snprintf(what, sizeof what, "handler:%s", basename(name));
            } else {
                snprintf(what, sizeof what, "handler:?");
            }
        }
        /* SA_RESTORER is the C library's; the other flags matter only with a handler, but
         * SA_NOCLDWAIT, which SIGCHLD's default obeys */
        unsigned flags = (unsigned)sa.sa_flags & ~(unsigned)SA_RESTORER;
        if (h == (void *)SIG_DFL || h == (void *)SIG_IGN) {
            flags &= (unsigned)SA_NOCLDWAIT;
        }
        emit(cp, "signal %d %s flags=0x%x", sig, what, flags);
    }
}

static void sigset_line(const char *cp, const char *item, const sigset_t *set)
{
    char list[1024] = "";
    size_t n = 0;
    for (int sig = 1; sig < NSIG; sig++) {
        if (sigismember(set, sig) == 1) {
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%d", n ? "," : "", sig);
        }
    }
    emit(cp, "%s %s", item, n ? list : "none");
}

static void limit(char *buf, size_t len, rlim_t v)
{
    if (v == RLIM_INFINITY) {
        snprintf(buf, len, "unlimited");
    } else {
        snprintf(buf, len, "%llu", (unsigned long long)v);
    }
}

static void rlimits(const char *cp)
{
    static const struct {
        int which;
        const char *name;
    } all[] = {{RLIMIT_CPU, "cpu"}, {RLIMIT_FSIZE, "fsize"}, {RLIMIT_DATA, "data"}, {RLIMIT_STACK, "stack"},
               {RLIMIT_CORE, "core"}, {RLIMIT_RSS, "rss"}, {RLIMIT_NPROC, "nproc"}, {RLIMIT_NOFILE, "nofile"},
               {RLIMIT_MEMLOCK, "memlock"}, {RLIMIT_AS, "as"}, {RLIMIT_LOCKS, "locks"},
               {RLIMIT_SIGPENDING, "sigpending"}, {RLIMIT_MSGQUEUE, "msgqueue"}, {RLIMIT_NICE, "nice"},
               {RLIMIT_RTPRIO, "rtprio"}, {RLIMIT_RTTIME, "rttime"}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        struct rlimit r;
        if (getrlimit(all[i].which, &r) != 0) {
            emit(cp, "rlimit %s error", all[i].name);
            continue;
        }
        char soft[32], hard[32];
        limit(soft, sizeof soft, r.rlim_cur);
        limit(hard, sizeof hard, r.rlim_max);
        emit(cp, "rlimit %s %s %s", all[i].name, soft, hard);
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void environment(const char *cp)
{
    size_t n = 0;
    while (environ[n]) {
        n++;
    }
    char **copy = malloc((n + 1) * sizeof *copy);
    if (copy == NULL) {
        abort();
    }
    memcpy(copy, environ, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, by_name);
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(copy[i], '=');
        if (eq) {
            emit(cp, "env %.*s %s", (int)(eq - copy[i]), copy[i], eq + 1);
        } else {
            emit(cp, "env %s (no =)", copy[i]);
        }
    }
    free(copy);
}

static void locales(const char *cp)
{
    static const struct {
        int category;
        const char *name;
    } all[] = {{LC_CTYPE, "LC_CTYPE"}, {LC_NUMERIC, "LC_NUMERIC"}, {LC_TIME, "LC_TIME"},
               {LC_COLLATE, "LC_COLLATE"}, {LC_MONETARY, "LC_MONETARY"}, {LC_MESSAGES, "LC_MESSAGES"},
               {LC_PAPER, "LC_PAPER"}, {LC_NAME, "LC_NAME"}, {LC_ADDRESS, "LC_ADDRESS"},
               {LC_TELEPHONE, "LC_TELEPHONE"}, {LC_MEASUREMENT, "LC_MEASUREMENT"},
               {LC_IDENTIFICATION, "LC_IDENTIFICATION"}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        const char *v = setlocale(all[i].category, NULL);
        emit(cp, "locale %s %s", all[i].name, v ? v : "(null)");
    }
    emit(cp, "thread-locale %s", uselocale((locale_t)0) == LC_GLOBAL_LOCALE ? "global" : "own");
}

/* glibc's FILE flags (libio.h): not in a public header; __flbf says line-buffered. */
#define GLIBC_IO_UNBUFFERED 0x0002

static void stream(const char *cp, const char *name, FILE *f)
{
    const char *mode = (f->_flags & GLIBC_IO_UNBUFFERED) ? "none" : __flbf(f) ? "line" : "full";
    int wide = fwide(f, 0);
    emit(cp, "stdio %s buffering=%s orientation=%s", name, mode, wide > 0 ? "wide" : wide < 0 ? "byte" : "none");
}

static void descriptors(const char *cp)
{
    for (int fd = 0; fd <= 2; fd++) {
        int fl = fcntl(fd, F_GETFL), fdf = fcntl(fd, F_GETFD);
        if (fl < 0) {
            emit(cp, "fd %d closed", fd);
        } else {
            emit(cp, "fd %d status=0x%x cloexec=%d", fd, (unsigned)fl, fdf >= 0 && (fdf & FD_CLOEXEC) ? 1 : 0);
        }
    }
}

static int count_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d == NULL) {
        return -1;
    }
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] != '.') {
            n++;
        }
    }
    closedir(d);
    return n - (strcmp(path, "/proc/self/fd") == 0); /* the directory's own descriptor */
}

static void fpstate(const char *cp)
{
#if defined(__x86_64__)
    unsigned int mxcsr;
    unsigned short cw, sw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    __asm__ volatile("fnstsw %0" : "=m"(sw));
    emit(cp, "fp mxcsr 0x%x", mxcsr);
    emit(cp, "fp x87cw 0x%x", cw);
    emit(cp, "fp x87sw 0x%x", sw);
#endif
    emit(cp, "fp except 0x%x", (unsigned)fetestexcept(FE_ALL_EXCEPT));
    emit(cp, "fp round 0x%x", (unsigned)fegetround());
}

/* The flags the next checkpoint reports are those raised after this. */
static void clear_flags(void)
{
    feclearexcept(FE_ALL_EXCEPT);
#if defined(__x86_64__)
    unsigned int mxcsr;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    mxcsr &= ~0x3fu; /* the denormal flag too, which fenv does not know */
    __asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
    __asm__ volatile("fnclex");
#endif
}

static void checkpoint(const char *cp)
{
    int saved = errno;
    fpstate(cp);
    signals(cp);
    sigset_t blocked, pending;
    pthread_sigmask(SIG_SETMASK, NULL, &blocked);
    sigset_line(cp, "blocked", &blocked);
    sigpending(&pending);
    sigset_line(cp, "pending", &pending);
    stack_t ss;
    if (sigaltstack(NULL, &ss) == 0) {
        emit(cp, "altstack %s size=%zu", ss.ss_flags & SS_DISABLE ? "disabled" : "enabled",
             ss.ss_flags & SS_DISABLE ? (size_t)0 : ss.ss_size);
    }
    rlimits(cp);
    mode_t mask = umask(0);
    umask(mask);
    emit(cp, "umask %04o", (unsigned)mask);
    char dir[PATH_MAX];
    emit(cp, "cwd %s", getcwd(dir, sizeof dir) ? dir : "(unreadable)");
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0);
    emit(cp, "nice %d", errno ? -1000 : nice);
    emit(cp, "sched policy=%d", sched_getscheduler(0));
    emit(cp, "dumpable %d", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
    char comm[32] = "";
    prctl(PR_GET_NAME, comm, 0, 0, 0);
    emit(cp, "comm %s", comm);
    static const struct {
        int which;
        const char *name;
    } timers[] = {{ITIMER_REAL, "real"}, {ITIMER_VIRTUAL, "virtual"}, {ITIMER_PROF, "prof"}};
    for (size_t i = 0; i < sizeof timers / sizeof timers[0]; i++) {
        struct itimerval t;
        if (getitimer(timers[i].which, &t) == 0) {
            int armed = t.it_value.tv_sec || t.it_value.tv_usec;
            emit(cp, "timer %s %s", timers[i].name, armed ? "armed" : "off");
        }
    }
    environment(cp);
    locales(cp);
    cpu_set_t cpus;
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0) {
        char list[4096] = "";
        size_t n = 0;
        for (int c = 0; c < CPU_SETSIZE && n < sizeof list - 8; c++) {
            if (CPU_ISSET(c, &cpus)) {
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%d", n ? "," : "", c);
            }
        }
        emit(cp, "affinity %s", list);
    }
    stream(cp, "stdin", stdin);
    stream(cp, "stdout", stdout);
    stream(cp, "stderr", stderr);
    descriptors(cp);
    emit(cp, "owned threads %d", count_dir("/proc/self/task"));
    emit(cp, "owned fds %d", count_dir("/proc/self/fd"));
    clear_flags();
    errno = saved;
}

/* errno across one call: the sentinel before, the call, what is left after. */
#define KEPT(cp, call)                                                                          \
    do {                                                                                        \
        errno = SENTINEL;                                                                       \
        int rc_ = (call);                                                                       \
        int e_ = errno;                                                                         \
        if (rc_ != MPI_SUCCESS) {                                                               \
            fprintf(stderr, "procstate: %s failed (%d)\n", #call, rc_);                         \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                       \
        }                                                                                       \
        emit(cp, "errno %.*s %s", (int)strcspn(#call, "("), #call, e_ == SENTINEL ? "kept" : "set"); \
    } while (0)

int main(int argc, char **argv)
{
    clear_flags();
    KEPT("init", MPI_Init(&argc, &argv));
    int rank, size;
    KEPT("init", MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    KEPT("init", MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (size < 2 || size % 2 != 0) {
        if (rank == 0) {
            fprintf(stderr, "procstate: needs an even number of ranks, 2 or more (%d)\n", size);
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    checkpoint("init");

    int partner = rank ^ 1;
    double x = 1.0 / 3.0, y = 0.0;
    double sum = 0.0;
    MPI_Status st;
    if (rank % 2 == 0) {
        KEPT("p2p", MPI_Send(&x, 1, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD));
        KEPT("p2p", MPI_Recv(&y, 1, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD, &st));
    } else {
        KEPT("p2p", MPI_Recv(&y, 1, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD, &st));
        KEPT("p2p", MPI_Send(&x, 1, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD));
    }
    KEPT("p2p", MPI_Sendrecv(&x, 1, MPI_DOUBLE, partner, 3, &y, 1, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD, &st));
    checkpoint("p2p");

    KEPT("collective", MPI_Barrier(MPI_COMM_WORLD));
    KEPT("collective", MPI_Bcast(&x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    KEPT("collective", MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    int mine = rank, *all = malloc((size_t)size * sizeof *all);
    if (all == NULL) {
        abort();
    }
    KEPT("collective", MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    checkpoint("collective");

    MPI_Request reqs[2], one;
    MPI_Status sts[2];
    KEPT("nonblocking", MPI_Irecv(&y, 1, MPI_DOUBLE, partner, 4, MPI_COMM_WORLD, &reqs[0]));
    KEPT("nonblocking", MPI_Isend(&x, 1, MPI_DOUBLE, partner, 4, MPI_COMM_WORLD, &reqs[1]));
    KEPT("nonblocking", MPI_Waitall(2, reqs, sts));
    KEPT("nonblocking", MPI_Iallreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &one));
    KEPT("nonblocking", MPI_Wait(&one, MPI_STATUS_IGNORE));
    checkpoint("nonblocking");

    KEPT("pcontrol", MPI_Pcontrol(0));
    KEPT("pcontrol", MPI_Pcontrol(1));
    checkpoint("pcontrol");

    checkpoint("finalize");
    KEPT("finalized", MPI_Finalize());
    checkpoint("finalized");
    free(all);

    char name[64];
    snprintf(name, sizeof name, "procstate-%d.txt", rank);
    FILE *f = fopen(name, "w");
    if (f == NULL || fwrite(out, 1, used, f) != used || fclose(f) != 0) {
        fprintf(stderr, "procstate: cannot write %s\n", name);
        return 1;
    }
    printf("procstate rank %d lines %d\n", rank, nlines);
    free(out);
    return 0;
}
