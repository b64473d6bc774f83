/*
 * java.c - the one JVM of a process with Java levels, created through the JNI invocation API at
 * the first MPI call, before that call goes on (so Java levels see MPI_Init).
 *
 * Where things come from, in order (the install layout: io.jpmpi.platform.InstallLayout):
 *   JDK        JPMPI_JAVA_HOME, then JAVA_HOME, then java.home in the installation's
 *              share/jpmpi/jpmpi.properties; its `release` file must say 22 or later.
 *   runtime    JPMPI_JAVA_CLASSPATH, else the installation's share/jpmpi/java/runtime, found from
 *              this library's own place (lib/<mpi>/), so a tree works wherever it is moved.
 *   archive    JPMPI_JAVA_AOT if set (empty: none), else jpmpi-jdk<N>.aot beside the first jar of
 *              the runtime, used only where its .info file says it was made for this JDK and this
 *              class path (the JVM refuses a cache made for other paths, loudly on every rank).
 *   options    the list in jvm.options (compiled in), -XX:+UseSystemMemoryBarrier where the kernel
 *              has it (system_barrier), then JPMPI_JAVA_OPTIONS (space-separated).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <jni.h>
#include <limits.h>
#include <linux/membarrier.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "jpmpi_core.h"
#include "jpmpi_jvm_options.h"
#include "jpmpi_settings.h"

#define JPMPI_MIN_JDK 22
#define MAX_OPTIONS 64

static const char *const jpmpi_runtime_jars[] = JPMPI_LAYOUT_RUNTIME_JARS;

typedef jint (*create_vm_t)(JavaVM **, void **, void *);

static int64_t (*bridge_call)(int64_t op, int64_t a, int64_t b, int64_t c);

/* Bridge.call0, registered as a JNI native method: the Java runtime's calls into the core. */
static jlong JNICALL bridge_native(JNIEnv *env, jclass cls, jlong op, jlong a, jlong b, jlong c)
{
    (void)env;
    (void)cls;
    return bridge_call(op, a, b, c);
}

/*
 * Whether the JVM can use the kernel's process-wide memory barrier (membarrier(2), private
 * expedited, Linux 4.14): then a thread's change between native and Java code, which every Java
 * level's call makes twice (into the level, back from the call below it), needs no fence of its
 * own; the JVM pays with one membarrier at each safepoint or handshake instead (rare in a rank,
 * benchmarks/README.md). Asked here, not by the JVM, which would warn on every rank of a kernel
 * without it; JPMPI_JAVA_OPTIONS=-XX:-UseSystemMemoryBarrier turns it off.
 */
static int system_barrier(void)
{
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    long need = MEMBARRIER_CMD_PRIVATE_EXPEDITED | MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED;
    return cmds > 0 && (cmds & need) == need;
}

static void say(const char *line)
{
    bridge_call(JPMPI_OP_MESSAGE, (int64_t)(intptr_t)line, 0, 0);
}

/* While the JVM starts, what it says is kept here: on a failure it becomes part of one line. */
static int vm_starting;
static char vm_said[2048];
static size_t vm_said_len;
static const char *vm_user_options;

/* JVM output that would go to stdout goes to stderr instead (kept back while the JVM starts). */
static jint vm_vfprintf(FILE *stream, const char *format, va_list args)
{
    (void)stream;
    if (vm_starting) {
        int n = vsnprintf(vm_said + vm_said_len, sizeof vm_said - vm_said_len, format, args);
        if (n > 0) {
            vm_said_len += (size_t)n < sizeof vm_said - vm_said_len ? (size_t)n : sizeof vm_said - vm_said_len - 1;
        }
        return n;
    }
    return vdprintf(STDERR_FILENO, format, args);
}

/* What the JVM said while starting, on one line ("a; b"). */
static const char *vm_said_line(void)
{
    static char line[sizeof vm_said];
    size_t o = 0;
    for (size_t i = 0; i < vm_said_len && o + 3 < sizeof line; i++) {
        char c = vm_said[i];
        if (c == '\n' || c == '\r') {
            if (o > 0 && line[o - 1] != ' ') {
                line[o++] = ';';
                line[o++] = ' ';
            }
        } else {
            line[o++] = c;
        }
    }
    while (o > 0 && (line[o - 1] == ' ' || line[o - 1] == ';')) {
        o--;
    }
    line[o] = '\0';
    return line;
}

/* Why the JVM did not start, in err: its own words, and the user's options if there were any. */
static void vm_failure(char *err, size_t errlen, const char *libjvm, int rc)
{
    const char *said = vm_said_line();
    if (vm_user_options) {
        snprintf(err, errlen, "the JVM did not start with " JPMPI_SETTING_JAVA_OPTIONS "='%s': %s", vm_user_options,
                 *said ? said : "it refused them");
    } else {
        snprintf(err, errlen, "the JVM (%s) did not start: %s (JNI_CreateJavaVM returned %d)", libjvm,
                 *said ? said : "no reason given", rc);
    }
}

static void vm_exit(jint code)
{
    char line[1400];
    if (vm_starting) {
        /* The JVM ends the process from inside JNI_CreateJavaVM (a heap or stack too small, ...):
         * one line with its reason, and the status of a bad entry, as when it returns an error. */
        vm_failure(line, sizeof line, "libjvm.so", (int)code);
        jpmpi_core_java_failed(line);
    }
    snprintf(line, sizeof line, "the JVM of the Java levels is ending the process with status %d", (int)code);
    say(line);
}

static void vm_abort(void)
{
    if (vm_starting) { /* as vm_exit: the JVM gives up while it starts (-Xmx1m) */
        char line[1400];
        vm_failure(line, sizeof line, "libjvm.so", -1);
        jpmpi_core_java_failed(line);
    }
    say("the JVM of the Java levels aborted");
}

/* Major version from $home/release (JAVA_VERSION="25.0.1"), or -1. */
static int jdk_major(const char *home)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/release", home);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    int major = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "JAVA_VERSION=", 13) == 0) {
            const char *v = line + 13 + (line[13] == '"');
            major = atoi(v);
            if (major == 1) { /* 1.8.0 */
                major = atoi(v + 2);
            }
            break;
        }
    }
    fclose(f);
    return major;
}

/* The value of `key=` in a file of key=value lines, or an empty string. */
static void file_value(const char *path, const char *key, char *out, size_t outlen)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return;
    }
    char line[4608];
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) == 0 && line[klen] == '=') {
            line[strcspn(line, "\r\n")] = '\0';
            snprintf(out, outlen, "%s", line + klen + 1);
            break;
        }
    }
    fclose(f);
}

/* A path in the installation this library belongs to (its prefix: the directory above lib/<mpi>/),
 * without symbolic links or dot-dots, as the launcher and the AOT training spell it. */
int jpmpi_install_path(const char *relative, char *out, size_t outlen)
{
    Dl_info info;
    if (dladdr((void *)jpmpi_java_start, &info) == 0 || info.dli_fname == NULL) {
        return -1;
    }
    char prefix[PATH_MAX];
    if (realpath(info.dli_fname, prefix) == NULL) {
        return -1;
    }
    for (int up = 0; up <= JPMPI_LAYOUT_LIB_DEPTH; up++) {
        char *slash = strrchr(prefix, '/');
        if (slash == NULL) {
            return -1;
        }
        *slash = '\0';
    }
    int len = snprintf(out, outlen, "%s/%s", prefix, relative);
    return len < 0 || (size_t)len >= outlen ? -1 : 0;
}

/* The default archive: jpmpi-jdk<N>.aot in the directory of the first classpath entry, if its
 * .info file says it was made for this JDK and this class path. */
static void default_archive(const char *classpath, const char *home, int major, char *out, size_t outlen,
                            char *map, size_t maplen)
{
    out[0] = '\0';
    map[0] = '\0';
    char first[2048];
    snprintf(first, sizeof first, "%.2000s", classpath);
    char *colon = strchr(first, ':');
    if (colon) {
        *colon = '\0';
    }
    char *slash = strrchr(first, '/');
    if (slash == NULL) {
        return;
    }
    *slash = '\0';
    char cache[2100], info[2200], made_home[4096], made_cp[4096], real_home[PATH_MAX], real_made[PATH_MAX];
    snprintf(cache, sizeof cache, "%s/jpmpi-jdk%d.aot", first, major);
    snprintf(info, sizeof info, "%s" JPMPI_LAYOUT_AOT_INFO_SUFFIX, cache);
    file_value(info, JPMPI_LAYOUT_AOT_JAVA_HOME_KEY, made_home, sizeof made_home);
    file_value(info, JPMPI_LAYOUT_AOT_CLASSPATH_KEY, made_cp, sizeof made_cp);
    if (access(cache, R_OK) != 0 || strcmp(made_cp, classpath) != 0 || realpath(home, real_home) == NULL
        || realpath(made_home, real_made) == NULL || strcmp(real_home, real_made) != 0) {
        return;
    }
    snprintf(out, outlen, "%s", cache);
    /* the options that map it at the address it was made for (the JVM's default: a random one, every
     * pointer of the cache moved first, 5 MB of its pages made the rank's own), where the JDK that made
     * it takes them */
    file_value(info, JPMPI_LAYOUT_AOT_MAP_OPTIONS_KEY, map, maplen);
}

struct options {
    JavaVMOption o[MAX_OPTIONS];
    int n;
    char text[8192];
    size_t used;
};

static void add(struct options *opts, void *extra, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void add(struct options *opts, void *extra, const char *fmt, ...)
{
    if (opts->n >= MAX_OPTIONS) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(opts->text + opts->used, sizeof opts->text - opts->used, fmt, ap);
    va_end(ap);
    if (len < 0 || opts->used + (size_t)len + 1 > sizeof opts->text) {
        return;
    }
    opts->o[opts->n].optionString = opts->text + opts->used;
    opts->o[opts->n].extraInfo = extra;
    opts->n++;
    opts->used += (size_t)len + 1;
}

/* The pending Java exception as one line (its toString), cleared. */
static void exception_text(JNIEnv *env, char *out, size_t outlen)
{
    jthrowable t = (*env)->ExceptionOccurred(env);
    (*env)->ExceptionClear(env);
    snprintf(out, outlen, "an exception");
    if (t == NULL) {
        return;
    }
    jclass object = (*env)->FindClass(env, "java/lang/Object");
    jmethodID to_string = object ? (*env)->GetMethodID(env, object, "toString", "()Ljava/lang/String;") : NULL;
    jstring s = to_string ? (jstring)(*env)->CallObjectMethod(env, t, to_string) : NULL;
    if ((*env)->ExceptionCheck(env) || s == NULL) {
        (*env)->ExceptionClear(env);
        return;
    }
    const char *chars = (*env)->GetStringUTFChars(env, s, NULL);
    if (chars) {
        snprintf(out, outlen, "%s", chars);
        (*env)->ReleaseStringUTFChars(env, s, chars);
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * The floating-point environment of the thread that starts the JVM (the application's, inside its
 * first MPI call): the JVM's start raises status flags there (MXCSR's denormal flag), which a
 * program testing its own exceptions (gfortran's runtime at STOP, fetestexcept) would see as its
 * own. Saved before, put back after: control and status of SSE (MXCSR) and of the x87 unit. MPI
 * calls through a Java level need nothing: HotSpot's upcall stub saves the caller's MXCSR and
 * restores it on return (layering/README.md, "Floating-point state").
 */
struct fp_env {
#if defined(__x86_64__) || defined(__i386__)
    unsigned int mxcsr;
    unsigned char x87[28];
#else
    int unused;
#endif
};

static void fp_save(struct fp_env *e)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("fnstenv %0\n\tfldenv %0" : "+m"(e->x87)); /* fnstenv masks x87 exceptions: put back */
    e->mxcsr = jpmpi_mxcsr();
#else
    (void)e;
#endif
}

static void fp_restore(const struct fp_env *e)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("fldenv %0" : : "m"(e->x87));
    jpmpi_set_mxcsr(e->mxcsr);
#else
    (void)e;
#endif
}

static int java_start(const struct jpmpi_bridge *bridge, const struct jpmpi_java_level *jars, int njars,
                      struct jpmpi_java_times *times, int *culprit, char *err, size_t errlen);

/*
 * What else the JVM's start changes for the whole process, put back as the application had it
 * (layering/README.md, "What a program can see of jpmpi"): the C library's locale (the JVM calls
 * setlocale(LC_ALL, ""), after which the program's printf and strtod follow the environment's
 * locale instead of "C"; the JVM has read what it needs of it by then), and the dispositions of
 * SIGPIPE and SIGXFSZ (the JVM ignores them in a handler of its own, so that a write to a closed
 * pipe or past RLIMIT_FSIZE would no longer end the program as it does without jpmpi).
 */
struct process_env {
    char *locale;
    struct sigaction pipe, xfsz;
};

static void process_save(struct process_env *e)
{
    const char *l = setlocale(LC_ALL, NULL);
    e->locale = l ? strdup(l) : NULL;
    sigaction(SIGPIPE, NULL, &e->pipe);
    sigaction(SIGXFSZ, NULL, &e->xfsz);
}

static void process_restore(struct process_env *e)
{
    if (e->locale) {
        setlocale(LC_ALL, e->locale);
        free(e->locale);
    }
    sigaction(SIGPIPE, &e->pipe, NULL);
    sigaction(SIGXFSZ, &e->xfsz, NULL);
}

int jpmpi_java_start(const struct jpmpi_bridge *bridge, const struct jpmpi_java_level *jars, int njars,
                     struct jpmpi_java_times *times, int *culprit, char *err, size_t errlen)
{
    struct fp_env app;
    struct process_env process;
    fp_save(&app);
    process_save(&process);
    int rc = java_start(bridge, jars, njars, times, culprit, err, errlen);
    process_restore(&process);
    fp_restore(&app);
    return rc;
}

static int java_start(const struct jpmpi_bridge *bridge, const struct jpmpi_java_level *jars, int njars,
                      struct jpmpi_java_times *times, int *culprit, char *err, size_t errlen)
{
    double t0 = now_ms();
    bridge_call = bridge->call;
    /* Until the JVM runs, what fails is the JDK or the runtime, which every Java level needs:
     * name the first one. */
    *culprit = njars > 0 ? jars[0].level : -1;
    const char *home = getenv(JPMPI_SETTING_JAVA_HOME);
    const char *home_var = JPMPI_SETTING_JAVA_HOME;
    if (home == NULL || *home == '\0') {
        home = getenv(JPMPI_SETTING_JAVA_HOME_ALIAS);
        home_var = JPMPI_SETTING_JAVA_HOME_ALIAS;
    }
    static char installed_home[2048], properties[PATH_MAX];
    if ((home == NULL || *home == '\0')
        && jpmpi_install_path(JPMPI_LAYOUT_PROPERTIES, properties, sizeof properties) == 0) {
        file_value(properties, JPMPI_LAYOUT_JAVA_HOME_KEY, installed_home, sizeof installed_home);
        home = installed_home;
        home_var = properties;
    }
    if (home == NULL || *home == '\0') {
        snprintf(err, errlen, "Java levels need a JDK >= %d, and neither " JPMPI_SETTING_JAVA_HOME " nor "
                 JPMPI_SETTING_JAVA_HOME_ALIAS " is set (nor " JPMPI_LAYOUT_JAVA_HOME_KEY " in an installation's "
                 "jpmpi.properties)",
                 JPMPI_MIN_JDK);
        return -1;
    }
    int major = jdk_major(home);
    if (major < 0) {
        snprintf(err, errlen, "%s=%s is not a JDK (no readable release file); Java levels need a JDK >= %d",
                 home_var, home, JPMPI_MIN_JDK);
        return -1;
    }
    if (major < JPMPI_MIN_JDK) {
        snprintf(err, errlen, "%s=%s is JDK %d; Java levels need a JDK >= %d", home_var, home, major, JPMPI_MIN_JDK);
        return -1;
    }
    const char *classpath = getenv(JPMPI_SETTING_JAVA_CLASSPATH);
    static char installed_cp[PATH_MAX * 2];
    if (classpath == NULL || *classpath == '\0') {
        char runtime[PATH_MAX];
        if (jpmpi_install_path(JPMPI_LAYOUT_RUNTIME, runtime, sizeof runtime) != 0 || access(runtime, R_OK) != 0) {
            /* The value to give, spelled out: the runtime's jars in an installation's runtime directory. */
            char jars[256] = "";
            size_t used = 0;
            for (size_t i = 0; i < sizeof jpmpi_runtime_jars / sizeof jpmpi_runtime_jars[0]; i++) {
                int len = snprintf(jars + used, sizeof jars - used, "%s<prefix>/%s/%s", i ? ":" : "",
                                   JPMPI_LAYOUT_RUNTIME, jpmpi_runtime_jars[i]);
                if (len < 0 || used + (size_t)len >= sizeof jars) {
                    break;
                }
                used += (size_t)len;
            }
            snprintf(err, errlen, JPMPI_SETTING_JAVA_CLASSPATH " is not set and this dispatcher is not in a jpmpi "
                     "installation (no %s); set " JPMPI_SETTING_JAVA_CLASSPATH "=%s, <prefix> a jpmpi installation "
                     "(jpmpi config prints the value)", runtime, jars);
            return -1;
        }
        size_t used = 0;
        for (size_t i = 0; i < sizeof jpmpi_runtime_jars / sizeof jpmpi_runtime_jars[0]; i++) {
            int len = snprintf(installed_cp + used, sizeof installed_cp - used, "%s%s/%s", i ? ":" : "", runtime,
                               jpmpi_runtime_jars[i]);
            if (len < 0 || used + (size_t)len >= sizeof installed_cp) {
                snprintf(err, errlen, "the path of the jpmpi Java runtime is too long: %s", runtime);
                return -1;
            }
            used += (size_t)len;
        }
        classpath = installed_cp;
    }
    char libjvm[4096];
    snprintf(libjvm, sizeof libjvm, "%s/lib/server/libjvm.so", home);
    dlerror();
    void *jvm = dlopen(libjvm, RTLD_NOW | RTLD_GLOBAL);
    if (jvm == NULL) {
        const char *why = dlerror();
        snprintf(err, errlen, "cannot load %s: %s", libjvm, why ? why : "unknown dlopen error");
        return -1;
    }
    create_vm_t create = (create_vm_t)dlsym(jvm, "JNI_CreateJavaVM");
    if (create == NULL) {
        snprintf(err, errlen, "%s has no JNI_CreateJavaVM", libjvm);
        return -1;
    }

    static struct options opts; /* large; used once */
    add(&opts, NULL, "-Djava.class.path=%s", classpath);
    for (size_t i = 0; i < sizeof jpmpi_jvm_options / sizeof jpmpi_jvm_options[0]; i++) {
        add(&opts, NULL, "%s", jpmpi_jvm_options[i]);
    }
    if (system_barrier()) {
        add(&opts, NULL, "-XX:+UseSystemMemoryBarrier");
    }
    add(&opts, NULL, "-Djpmpi.jdk.major=%d", major);
    add(&opts, (void *)vm_vfprintf, "vfprintf");
    add(&opts, (void *)vm_exit, "exit");
    add(&opts, (void *)vm_abort, "abort");
    char archive[4096];
    static char map[512];
    map[0] = '\0';
    const char *aot = getenv(JPMPI_SETTING_JAVA_AOT);
    if (aot) {
        snprintf(archive, sizeof archive, "%s", aot);
    } else {
        default_archive(classpath, home, major, archive, sizeof archive, map, sizeof map);
    }
    if (archive[0]) {
        if (major >= 25) {
            add(&opts, NULL, "-XX:AOTCache=%s", archive);
            /* The cache holds no method profiles (jpmpi aot): replaying them would only start one
             * more thread in every rank ("Training replay", ~3 ms of CPU: benchmarks/README.md). */
            add(&opts, NULL, "-XX:+UnlockDiagnosticVMOptions");
            add(&opts, NULL, "-XX:-AOTReplayTraining");
        } else {
            add(&opts, NULL, "-XX:SharedArchiveFile=%s", archive);
        }
        static char words[sizeof map];
        snprintf(words, sizeof words, "%s", map);
        for (char *save = NULL, *tok = strtok_r(words, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
            add(&opts, NULL, "%s", tok);
        }
    }
    static char extra[4096];
    const char *user = getenv(JPMPI_SETTING_JAVA_OPTIONS);
    vm_user_options = user && *user ? user : NULL;
    if (user) {
        snprintf(extra, sizeof extra, "%s", user);
        for (char *save = NULL, *tok = strtok_r(extra, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
            add(&opts, NULL, "%s", tok);
        }
    }

    JavaVMInitArgs args = {.version = JNI_VERSION_10, .nOptions = opts.n, .options = opts.o,
                           .ignoreUnrecognized = JNI_FALSE};
    JavaVM *vm = NULL;
    JNIEnv *env = NULL;
    double t1 = now_ms();
    vm_starting = 1;
    int signals = jpmpi_signals_before_jvm(jvm);
    jint rc = create(&vm, (void **)&env, &args);
    vm_starting = 0;
    double t2 = now_ms();
    if (signals == 0 && rc == JNI_OK) {
        jpmpi_signals_after_jvm();
    } else if (signals == 0) {
        jpmpi_signals_abandon();
    }
    if (rc != JNI_OK) {
        if (rc == JNI_EEXIST) {
            snprintf(err, errlen, "the JVM (%s) did not start: this process already has a JVM", libjvm);
        } else {
            vm_failure(err, errlen, libjvm, (int)rc);
        }
        return -1;
    }
    if (vm_said_len > 0) {
        dprintf(STDERR_FILENO, "%s", vm_said); /* warnings of a JVM that did start: as before, on stderr */
        vm_said_len = 0;
    }
    jclass boot = (*env)->FindClass(env, "io/jpmpi/layering/runtime/Boot");
    if (boot == NULL) {
        (*env)->ExceptionClear(env);
        snprintf(err, errlen, "the jpmpi Java runtime (io.jpmpi.layering.runtime.Boot) is not on "
                 JPMPI_SETTING_JAVA_CLASSPATH "=%s", classpath);
        return -1;
    }
    /* The runtime calls the core through JNI rather than a downcall handle, whose linking would
     * cost the cold JVM several ms more at the start. */
    jclass bridge_class = (*env)->FindClass(env, "io/jpmpi/layering/runtime/Bridge");
    JNINativeMethod natives[] = {{"call0", "(JJJJ)J", (void *)bridge_native}};
    if (bridge_class == NULL || (*env)->RegisterNatives(env, bridge_class, natives, 1) != JNI_OK) {
        exception_text(env, err, errlen);
        return -1;
    }
    jmethodID start = (*env)->GetStaticMethodID(env, boot, "start",
                                                "(J[Ljava/lang/String;Z[[B[I[I)Ljava/lang/String;");
    jclass string = (*env)->FindClass(env, "java/lang/String");
    jclass bytes = (*env)->FindClass(env, "[B");
    jobjectArray paths = start && string && bytes ? (*env)->NewObjectArray(env, njars, bytes, NULL) : NULL;
    jintArray indexes = paths ? (*env)->NewIntArray(env, njars) : NULL;
    jintArray fds = indexes ? (*env)->NewIntArray(env, njars) : NULL;
    /* The slot names as Java strings, made here: reading them through FFM in the still cold JVM
     * would interpret every byte. */
    jobjectArray names = fds ? (*env)->NewObjectArray(env, (jsize)bridge->nslots, string, NULL) : NULL;
    for (int64_t slot = 0; names && slot < bridge->nslots; slot++) {
        jstring s = (*env)->NewStringUTF(env, bridge->slot_names[slot]);
        if (s == NULL) {
            names = NULL;
            break;
        }
        (*env)->SetObjectArrayElement(env, names, (jsize)slot, s);
        (*env)->DeleteLocalRef(env, s);
    }
    if (names == NULL) {
        exception_text(env, err, errlen);
        return -1;
    }
    /* A path goes as its bytes (NewStringUTF would read modified UTF-8 and mangle an emoji), with a
     * descriptor open on it for a path the JVM's file-system encoding cannot spell (LevelJar.java);
     * the descriptor stays open: the level's class loader may read the jar through it. */
    for (int i = 0; i < njars; i++) {
        jsize len = (jsize)strlen(jars[i].jar);
        jbyteArray b = (*env)->NewByteArray(env, len);
        if (b == NULL) {
            exception_text(env, err, errlen);
            return -1;
        }
        (*env)->SetByteArrayRegion(env, b, 0, len, (const jbyte *)jars[i].jar);
        (*env)->SetObjectArrayElement(env, paths, i, b);
        (*env)->DeleteLocalRef(env, b);
        jint level = jars[i].level, fd = open(jars[i].jar, O_RDONLY | O_CLOEXEC);
        (*env)->SetIntArrayRegion(env, indexes, i, 1, &level);
        (*env)->SetIntArrayRegion(env, fds, i, 1, &fd);
    }
    *culprit = -1;
    jstring failure = (jstring)(*env)->CallStaticObjectMethod(env, boot, start, (jlong)(intptr_t)bridge, names, JNI_TRUE,
                                                              paths, indexes, fds);
    times->find_ms = t1 - t0;
    times->create_ms = t2 - t1;
    times->boot_ms = now_ms() - t2;
    times->archive = archive[0] != '\0';
    times->map = map;
    if ((*env)->ExceptionCheck(env)) {
        exception_text(env, err, errlen);
        return -1;
    }
    if (failure != NULL) {
        /* "<level index>\t<reason>" */
        const char *chars = (*env)->GetStringUTFChars(env, failure, NULL);
        const char *tab = chars ? strchr(chars, '\t') : NULL;
        if (tab) {
            *culprit = atoi(chars);
            snprintf(err, errlen, "%s", tab + 1);
        } else {
            snprintf(err, errlen, "%s", chars ? chars : "the Java runtime failed");
        }
        if (chars) {
            (*env)->ReleaseStringUTFChars(env, failure, chars);
        }
        return -1;
    }
    return 0;
}
