/*
 * plan.c - libexec/jpmpi/jpmpi-plan: a job started again from the plan an earlier `jpmpi run` kept,
 * without the launcher's JVM (tools-entry/README.md, "What `run` does", 9; the plans are
 * written by tools-entry's Plans.java). bin/jpmpi runs it for `jpmpi run` without the profile tool:
 *
 *     jpmpi-plan HOME N JAVA-COMMAND(N words) ARGS...
 *
 * HOME is the installation, JAVA-COMMAND the launcher's JVM as bin/jpmpi would start it, ARGS jpmpi's
 * own arguments (run ... -- LAUNCHER ...). When a plan kept for the first words of ARGS (up to the
 * program) is there, is the user's own, and everything it was made from is as it was then (the
 * installation, each variable the planning read, each file it read or checked, each name on PATH found
 * to be no program and each place a library was not, the working directory where a relative path was
 * resolved, what each command the planning ran said: it is run again), the lines the planning said are
 * said again, the variables
 * it set for the launcher are set, and the launcher's words then take this process's place, followed
 * by the program's own arguments of this command line. Anything else (no plan, another user's, one
 * thing changed, a word that is not the program's after it) and this process becomes JAVA-COMMAND
 * ARGS, which plans the job anew, as without plans.
 *
 * The launcher gets this process as bin/jpmpi left it, which is the shell's: its signal mask, its
 * ignored signals and its descriptors, as `exec mpirun ...` in a script gives them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* A plan is a few kilobytes; one beyond this is not one of jpmpi's. */
#define PLAN_MAX (1 << 20)
/* The words a plan is for start with run, --, the launcher and the program. */
#define KEY_MIN 3
/* The most a command run while planning says for a plan to hold it (Plans.SAID_MAX). */
#define SAID_MAX (64 * 1024)
/* How long such a command gets (Processes.capture: 30 s). */
#define SAID_SECONDS 30

static char **java_command;
/* -Djpmpi.inherited.fds=N,N...: the descriptors above 2 this process started with (none: empty). */
static char inherited[4096];

/*
 * The descriptors above 2 this process was started with (the shell's redirections, 3>file), for the JVM
 * (tools-entry's InPlace), which passes them to the launcher as the shell would, and none of its own.
 */
static void list_inherited(void) {
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL) {
        return;
    }
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        if (*end != '\0' || end == e->d_name || fd <= 2 || fd == dirfd(d)) {
            continue;
        }
        int w = snprintf(inherited + n, sizeof inherited - n, "%s%ld", n == 0 ? "-Djpmpi.inherited.fds=" : ",", fd);
        if (w < 0 || (size_t)w >= sizeof inherited - n) {
            inherited[n] = '\0'; /* too many: those listed so far */
            break;
        }
        n += (size_t)w;
    }
    closedir(d);
}

/* This process becomes the launcher's JVM with ARGS, which plans the job anew. */
static _Noreturn void plan_anew(void) {
    if (inherited[0] != '\0') {
        /* the JVM's first word, the descriptors, then its other words and ARGS (java_command ends argv) */
        int n = 0;
        while (java_command[n] != NULL) {
            n++;
        }
        char **words = calloc((size_t)n + 2, sizeof *words);
        if (words != NULL) {
            words[0] = java_command[0];
            words[1] = inherited;
            memcpy(words + 2, java_command + 1, (size_t)n * sizeof *words);
            java_command = words;
        }
    }
    execv(java_command[0], java_command);
    fprintf(stderr, "jpmpi: cannot start %s: %s\n", java_command[0], strerror(errno));
    _exit(126);
}

/* FNV-1a (64 bits) of the words, each ended by its NUL: what Plans.name computes. */
static uint64_t key_hash(char **words, int n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int i = 0; i < n; i++) {
        for (const unsigned char *c = (const unsigned char *)words[i];; c++) {
            h = (h ^ *c) * 0x100000001b3ULL;
            if (*c == '\0') {
                break;
            }
        }
    }
    return h;
}

/* The user's own: owned by this user, writable by no other (group only when it is the user's group). */
static int own(const struct stat *st) {
    return st->st_uid == geteuid() && !(st->st_mode & S_IWOTH) && (!(st->st_mode & S_IWGRP) || st->st_gid == getegid());
}

/* The directory `name` below `at` if it is one of the user's own (no symbolic link); -1 otherwise. */
static int own_dir(int at, const char *name) {
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !own(&st))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The plans' directory ($XDG_CACHE_HOME/jpmpi/plans, else $HOME/.cache/jpmpi/plans); -1 if none is. */
static int plans_dir(void) {
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    char base[PATH_MAX];
    if (xdg != NULL && xdg[0] == '/') {
        if ((size_t)snprintf(base, sizeof base, "%s", xdg) >= sizeof base) {
            return -1;
        }
    } else if (home != NULL && home[0] == '/') {
        if ((size_t)snprintf(base, sizeof base, "%s/.cache", home) >= sizeof base) {
            return -1;
        }
    } else {
        return -1;
    }
    int b = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (b < 0) {
        return -1;
    }
    int j = own_dir(b, "jpmpi");
    close(b);
    if (j < 0) {
        return -1;
    }
    int d = own_dir(j, "plans");
    close(j);
    return d;
}

/* The plan named `name` in `dir`, read whole (NUL-terminated past its end); NULL if none or not the user's. */
static char *read_plan(int dir, const char *name, size_t *size) {
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return NULL;
    }
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && own(&st) && st.st_size > 0 && st.st_size <= PLAN_MAX &&
        (buf = malloc((size_t)st.st_size + 1)) != NULL) {
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
            if (r <= 0) {
                if (r < 0 && errno == EINTR) {
                    continue;
                }
                break;
            }
            got += (size_t)r;
        }
        if (got == (size_t)st.st_size) {
            buf[got] = '\0';
            *size = got;
            futimens(fd, NULL); /* used now: the newest are kept */
        } else {
            free(buf);
            buf = NULL;
        }
    }
    close(fd);
    return buf;
}

/* The words of a plan, one after the other. */
struct reader {
    char *at;
    char *end;
};

static const char *next(struct reader *r) {
    if (r->at >= r->end) {
        return NULL;
    }
    char *w = r->at;
    char *nul = memchr(w, '\0', (size_t)(r->end - w));
    if (nul == NULL) {
        return NULL;
    }
    r->at = nul + 1;
    return w;
}

/* The next word as a whole number (decimal, maybe negative); 0 if it is not one. */
static int number(struct reader *r, long long *out) {
    const char *w = next(r);
    if (w == NULL || *w == '\0') {
        return 0;
    }
    char *end;
    errno = 0;
    long long v = strtoll(w, &end, 10);
    if (errno != 0 || *end != '\0') {
        return 0;
    }
    *out = v;
    return 1;
}

static int same(const char *a, const char *b) {
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* `path` is there with the identity, size and times the planning saw (links followed). */
static int file_as_was(struct reader *r) {
    const char *path = next(r);
    long long v[5];
    for (int i = 0; i < 5; i++) {
        if (!number(r, &v[i])) {
            return 0;
        }
    }
    struct stat st;
    if (path == NULL || stat(path, &st) != 0) {
        return 0;
    }
    long long mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    long long ctime = (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
    return (long long)st.st_dev == v[0] && (long long)st.st_ino == v[1] && (long long)st.st_size == v[2] &&
           mtime == v[3] && ctime == v[4];
}

/*
 * What a command said without the load addresses the dynamic loader prints (" (0x7f...)", another at
 * every run): Plans.steady's rule, in place; the new length.
 */
static size_t steady(char *b, size_t n) {
    size_t out = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 4;
        if (j < n && memcmp(b + i, " (0x", 4) == 0) {
            size_t digits = j;
            while (j < n && ((b[j] >= '0' && b[j] <= '9') || (b[j] >= 'a' && b[j] <= 'f') || (b[j] >= 'A' && b[j] <= 'F'))) {
                j++;
            }
            if (j > digits && j < n && b[j] == ')') {
                i = j + 1;
                continue;
            }
        }
        b[out++] = b[i++];
    }
    return out;
}

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Whether `cmd` says `want` now, run as Processes.capture ran it while planning: stdin /dev/null, stdout
 * and stderr together, without LD_PRELOAD, no other descriptor; at most SAID_SECONDS, SAID_MAX bytes.
 */
static int says(char *const cmd[], const char *want) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        return 0;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return 0;
    }
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        if (in < 0 || dup2(in, 0) < 0 || dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0) {
            _exit(127);
        }
#ifdef SYS_close_range
        if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
#endif
        {
            for (int fd = 3; fd < 1024; fd++) {
                close(fd);
            }
        }
        unsetenv("LD_PRELOAD");
        execvp(cmd[0], cmd);
        _exit(127);
    }
    close(p[1]);
    char *got = malloc(SAID_MAX + 1);
    size_t n = 0;
    int ok = got != NULL;
    double until = seconds() + SAID_SECONDS;
    while (ok) {
        double left = until - seconds();
        struct pollfd pf = {.fd = p[0], .events = POLLIN};
        int r = left > 0 ? poll(&pf, 1, (int)(left * 1000) + 1) : 0;
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            ok = 0; /* too long: the JVM plans and says why */
            break;
        }
        ssize_t k = read(p[0], got + n, SAID_MAX + 1 - n);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            break;
        }
        n += (size_t)k;
        if (n > SAID_MAX) {
            ok = 0;
        }
    }
    close(p[0]);
    if (!ok) {
        kill(pid, SIGKILL);
    }
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    if (ok) {
        n = steady(got, n);
        ok = n == strlen(want) && memcmp(got, want, n) == 0;
    }
    free(got);
    return ok;
}

/* What a plan asks of the launcher: said, set (or unset), run. */
struct start {
    const char *notes[64];
    int n_notes;
    char *sets[64];
    int n_sets;
    char *unsets[16];
    int n_unsets;
    char **words;
    int n_words;
};

/*
 * Whether the plan `buf` (for the first `k` of `args`) holds for this command line here and now; fills
 * `s`. Every word of the plan is checked or used; one the plan does not know makes it not hold.
 */
static int holds(char *buf, size_t size, const char *home, char **args, int n_args, int k, struct start *s) {
    struct reader r = {buf, buf + size};
    long long v;
    if (!same(next(&r), "jpmpi-plan") || !same(next(&r), "1") || !same(next(&r), "home") ||
        !same(next(&r), home) || !same(next(&r), "key") || !number(&r, &v) || v != k) {
        return 0;
    }
    for (int i = 0; i < k; i++) {
        if (!same(next(&r), args[i])) {
            return 0;
        }
    }
    const char *sep;
    if (!same(next(&r), "separator") || (sep = next(&r)) == NULL) {
        return 0;
    }
    for (int i = k; *sep != '\0' && i < n_args; i++) {
        if (strcmp(args[i], sep) == 0) {
            return 0; /* another context of programs: the plan is for one */
        }
    }
    for (;;) {
        const char *tag = next(&r);
        if (tag == NULL) {
            return 0;
        }
        if (strcmp(tag, "end") == 0) {
            return s->words != NULL;
        }
        if (strcmp(tag, "env") == 0) {
            const char *name = next(&r);
            const char *was = next(&r);
            if (name == NULL || was == NULL) {
                return 0;
            }
            const char *now = getenv(name);
            if (was[0] == '-' ? now != NULL : was[0] != '=' || now == NULL || strcmp(now, was + 1) != 0) {
                return 0;
            }
        } else if (strcmp(tag, "cwd") == 0) {
            char cwd[PATH_MAX];
            if (getcwd(cwd, sizeof cwd) == NULL || !same(next(&r), cwd)) {
                return 0;
            }
        } else if (strcmp(tag, "file") == 0) {
            if (!file_as_was(&r)) {
                return 0;
            }
        } else if (strcmp(tag, "real") == 0) {
            const char *path = next(&r);
            const char *to = next(&r);
            char *real = path == NULL ? NULL : realpath(path, NULL);
            int ok = same(real, to);
            free(real);
            if (!ok) {
                return 0;
            }
        } else if (strcmp(tag, "notexec") == 0) {
            const char *path = next(&r);
            struct stat st;
            if (path == NULL || (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)) {
                return 0;
            }
        } else if (strcmp(tag, "nofile") == 0) {
            const char *path = next(&r);
            struct stat st;
            if (path == NULL || (stat(path, &st) == 0 && S_ISREG(st.st_mode))) {
                return 0;
            }
        } else if (strcmp(tag, "ran") == 0) {
            char *cmd[65];
            if (!number(&r, &v) || v < 1 || v > 64) {
                return 0;
            }
            for (int i = 0; i < v; i++) {
                if ((cmd[i] = (char *)next(&r)) == NULL) {
                    return 0;
                }
            }
            cmd[v] = NULL;
            const char *want = next(&r);
            if (want == NULL || !says(cmd, want)) {
                return 0;
            }
        } else if (strcmp(tag, "note") == 0) {
            const char *line = next(&r);
            if (line == NULL || s->n_notes == (int)(sizeof s->notes / sizeof s->notes[0])) {
                return 0;
            }
            s->notes[s->n_notes++] = line;
        } else if (strcmp(tag, "unset") == 0) {
            char *var = (char *)next(&r);
            if (var == NULL || var[0] == '\0' || strchr(var, '=') != NULL ||
                s->n_unsets == (int)(sizeof s->unsets / sizeof s->unsets[0])) {
                return 0;
            }
            s->unsets[s->n_unsets++] = var;
        } else if (strcmp(tag, "set") == 0) {
            char *var = (char *)next(&r);
            if (var == NULL || strchr(var, '=') == NULL || var[0] == '=' ||
                s->n_sets == (int)(sizeof s->sets / sizeof s->sets[0])) {
                return 0;
            }
            s->sets[s->n_sets++] = var;
        } else if (strcmp(tag, "exec") == 0) {
            if (!number(&r, &v) || v < 1 || v > 4096 || s->words != NULL) {
                return 0;
            }
            s->n_words = (int)v;
            s->words = calloc((size_t)(s->n_words + n_args - k) + 1, sizeof *s->words);
            if (s->words == NULL) {
                return 0;
            }
            for (int i = 0; i < s->n_words; i++) {
                if ((s->words[i] = (char *)next(&r)) == NULL) {
                    return 0;
                }
            }
            for (int i = k; i < n_args; i++) {
                s->words[s->n_words + i - k] = args[i];
            }
        } else {
            return 0;
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "jpmpi-plan: bin/jpmpi's helper (usage: jpmpi-plan HOME N JAVA-COMMAND... ARGS...)\n");
        return 64;
    }
    char *end;
    long n_java = strtol(argv[2], &end, 10);
    if (*end != '\0' || n_java < 1 || n_java > argc - 3) {
        fprintf(stderr, "jpmpi-plan: '%s' is not the number of the JVM's words\n", argv[2]);
        return 64;
    }
    list_inherited();
    java_command = argv + 3;
    char **args = argv + 3 + n_java;
    int n_args = argc - 3 - (int)n_java;
    int dir = n_args >= KEY_MIN ? plans_dir() : -1;
    if (dir < 0) {
        plan_anew();
    }
    /* The longest first words a plan is kept for: a plan is for the words up to the program. */
    for (int k = n_args; k >= KEY_MIN; k--) {
        char name[32];
        snprintf(name, sizeof name, "%016llx.plan", (unsigned long long)key_hash(args, k));
        size_t size = 0;
        char *buf = read_plan(dir, name, &size);
        if (buf == NULL) {
            continue;
        }
        struct start s = {0};
        if (!holds(buf, size, argv[1], args, n_args, k, &s)) {
            free(s.words);
            free(buf);
            break; /* the plan for these words is outdated: planned anew (and kept anew) */
        }
        close(dir);
        for (int i = 0; i < s.n_notes; i++) {
            fprintf(stderr, "jpmpi: %s\n", s.notes[i]);
        }
        for (int i = 0; i < s.n_unsets; i++) {
            unsetenv(s.unsets[i]);
        }
        for (int i = 0; i < s.n_sets; i++) {
            char *eq = strchr(s.sets[i], '=');
            *eq = '\0';
            setenv(s.sets[i], eq + 1, 1);
            *eq = '=';
        }
        fflush(stderr);
        execvp(s.words[0], s.words);
        /* not started: the JVM plans it anew and says why it cannot start */
        break;
    }
    plan_anew();
}
