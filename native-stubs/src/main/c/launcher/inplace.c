/*
 * inplace.c - libjpmpi-inplace.so, loaded by the launcher's own JVM only (tools-entry's InPlace):
 * `jpmpi run` with tools that need nothing of it after the job becomes the MPI launcher, as
 * `exec mpirun ...` does in a shell script, instead of starting it as a child and waiting. The job then
 * has no JVM beside it, the launcher gets the user's signals itself, and its exit status is the
 * command's (tools-entry/README.md, "What `run` does", 7).
 *
 * What the new image gets is what a child started by the JDK's ProcessBuilder got before, and what
 * the launcher would get from the shell without jpmpi:
 * - the process's environment as it is (bytes, not the JVM's strings), with the given variables set
 *   over it;
 * - the signal mask the process started with: the JVM's threads block SIGQUIT, and a mask survives
 *   exec; the process's first thread (the java launcher's, waiting for the JVM's main thread) still
 *   has the original one, read from /proc;
 * - descriptors 0, 1 and 2, and those the process was started with (bin/jpmpi's helper names them),
 *   as the shell would have passed them to the launcher: every other one (the JVM's jars and its AOT
 *   cache among them, not all opened close-on-exec) is marked close-on-exec. In a table of this
 *   thread's own first (unshare(CLONE_FILES)): another of the JVM's threads may open a file while this
 *   one looks (1 exec in 30 took a jar the JVM's logger was reading along), and that file would go to
 *   the job;
 * - handlers the JVM installed go back to the default by exec itself, and the signals ignored when
 *   bin/jpmpi started are ignored again (the JVM replaces an ignored SIGPIPE, for one, with a handler).
 * The command is found on the process's PATH, as ProcessBuilder looked for it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

/* The Java byte arrays of `words` as C strings, NULL-terminated (NULL when out of memory). */
static char **strings(JNIEnv *env, jobjectArray words, jsize *count) {
    jsize n = (*env)->GetArrayLength(env, words);
    char **out = calloc((size_t)n + 1, sizeof *out);
    if (out == NULL) {
        return NULL;
    }
    for (jsize i = 0; i < n; i++) {
        jbyteArray word = (jbyteArray)(*env)->GetObjectArrayElement(env, words, i);
        jsize len = (*env)->GetArrayLength(env, word);
        out[i] = malloc((size_t)len + 1);
        if (out[i] == NULL) {
            return NULL;
        }
        (*env)->GetByteArrayRegion(env, word, 0, len, (jbyte *)out[i]);
        out[i][len] = '\0';
        (*env)->DeleteLocalRef(env, word);
    }
    *count = n;
    return out;
}

/* Whether the environment entry `entry` (NAME=VALUE) names one of `vars` (NAME=VALUE, or NAME: unset). */
static int overridden(const char *entry, char **vars, jsize nvars) {
    const char *eq = strchr(entry, '=');
    size_t name = eq != NULL ? (size_t)(eq - entry) : strlen(entry);
    for (jsize i = 0; i < nvars; i++) {
        if (strncmp(vars[i], entry, name) == 0 && (vars[i][name] == '=' || vars[i][name] == '\0')) {
            return 1;
        }
    }
    return 0;
}

/* The signal mask the process's first thread has (the one it started with); 0 when it cannot be read. */
static int original_mask(sigset_t *mask) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/status", (long)getpid());
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        return 0;
    }
    char line[256];
    int found = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long long bits;
        if (sscanf(line, "SigBlk: %llx", &bits) == 1) {
            sigemptyset(mask);
            for (int sig = 1; sig <= 64; sig++) {
                if (bits & (1ULL << (sig - 1))) {
                    sigaddset(mask, sig); /* glibc's own two real-time signals are refused: fine */
                }
            }
            found = 1;
            break;
        }
    }
    fclose(f);
    return found;
}

/* Whether `fd` is one of the `n` descriptors in `keep`. */
static int kept(long fd, const jint *keep, jsize n) {
    for (jsize i = 0; i < n; i++) {
        if (keep[i] == fd) {
            return 1;
        }
    }
    return 0;
}

/*
 * Every descriptor above 2 close-on-exec but those of `keep` (the ones bin/jpmpi's process was started
 * with), in this thread's own copy of the table (what execve takes): no other thread adds to it once it
 * is made. Without the copy (the call refused) the process's table.
 */
static void close_on_exec(const jint *keep, jsize n) {
    int own_table = unshare(CLONE_FILES) == 0;
    DIR *d = opendir(own_table ? "/proc/thread-self/fd" : "/proc/self/fd");
    if (d == NULL) {
#ifdef SYS_close_range
        if (n == 0 && syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) == 0) {
            return;
        }
#endif
        for (int fd = 3; fd < 1024; fd++) { /* no /proc: the usual range */
            int flags = kept(fd, keep, n) ? -1 : fcntl(fd, F_GETFD);
            if (flags >= 0) {
                fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
            }
        }
        return;
    }
    int dir = dirfd(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        if (*end != '\0' || end == e->d_name || fd <= 2 || fd == dir || kept(fd, keep, n)) {
            continue;
        }
        int flags = fcntl((int)fd, F_GETFD);
        if (flags >= 0) {
            fcntl((int)fd, F_SETFD, flags | FD_CLOEXEC);
        }
    }
    closedir(d);
}

/* Each signal whose bit (N-1) is set in `ignored` ignored, as it was when bin/jpmpi started. */
static void ignore_again(unsigned long long ignored) {
    for (int sig = 1; sig <= 64; sig++) {
        if ((ignored & (1ULL << (sig - 1))) && sig != SIGKILL && sig != SIGSTOP) {
            signal(sig, SIG_IGN); /* glibc's own two real-time signals are refused: fine */
        }
    }
}

/*
 * io.jpmpi.tools.InPlace.exec(byte[][] argv, byte[][] vars, long ignored, int[] keep): executes argv (its
 * first word looked up on PATH unless it has a slash) with `vars` (NAME=VALUE; NAME alone: unset) set over the environment,
 * the signals of `ignored` ignored, and no descriptor above 2 but those of `keep`. Returns only when
 * that fails: errno, or ENOMEM when the words could not be copied (the signals are then left ignored:
 * the launcher ends).
 */
JNIEXPORT jint JNICALL Java_io_jpmpi_tools_InPlace_exec(JNIEnv *env, jclass cls, jobjectArray argv, jobjectArray vars,
                                                        jlong ignored, jintArray keep) {
    (void)cls;
    jsize nargs = 0, nvars = 0, nenv = 0;
    char **args = strings(env, argv, &nargs);
    char **set = strings(env, vars, &nvars);
    if (args == NULL || set == NULL || nargs == 0) {
        return nargs == 0 && args != NULL ? EINVAL : ENOMEM;
    }
    while (environ != NULL && environ[nenv] != NULL) {
        nenv++;
    }
    char **envp = calloc((size_t)nenv + (size_t)nvars + 1, sizeof *envp);
    if (envp == NULL) {
        return ENOMEM;
    }
    jsize n = 0;
    for (jsize i = 0; i < nenv; i++) {
        if (!overridden(environ[i], set, nvars)) {
            envp[n++] = environ[i];
        }
    }
    for (jsize i = 0; i < nvars; i++) {
        if (strchr(set[i], '=') != NULL) { /* (NAME alone: unset, left out above) */
            envp[n++] = set[i];
        }
    }
    sigset_t mask, before;
    int restore = original_mask(&mask);
    jsize nkeep = (*env)->GetArrayLength(env, keep);
    jint *fds = (*env)->GetIntArrayElements(env, keep, NULL);
    if (fds == NULL) {
        return ENOMEM;
    }
    close_on_exec(fds, nkeep);
    ignore_again((unsigned long long)ignored);
    if (restore) {
        pthread_sigmask(SIG_SETMASK, &mask, &before);
    }
    execvpe(args[0], args, envp);
    int err = errno;
    if (restore) {
        pthread_sigmask(SIG_SETMASK, &before, NULL);
    }
    return err; /* (the copies are left: the launcher ends now) */
}

/* io.jpmpi.tools.InPlace.strerror(int): the C library's words for an errno. */
JNIEXPORT jstring JNICALL Java_io_jpmpi_tools_InPlace_strerror(JNIEnv *env, jclass cls, jint err) {
    (void)cls;
    return (*env)->NewStringUTF(env, strerror(err));
}
