/* libjpmpi-rank-entry.so - the environment modules' way into an MPI rank (share/modulefiles/jpmpi).
 *
 * `module load jpmpi` puts this library into LD_PRELOAD. In every process it is inert (a few getenv
 * calls) unless the process links an MPI library (Open MPI's libmpi.so.40, MPICH's libmpich.so.12),
 * a tool list is set (JPMPI_TOOLS_ENTRY, else Open MPI's --mca ompi_tools_entry, which mpirun passes
 * to the ranks as OMPI_MCA_ompi_tools_entry) and jpmpi's dispatcher is not loaded yet (bin/jpmpi run,
 * or a by-hand LD_PRELOAD, did it already). Then, before main, it does what bin/jpmpi run does for a
 * rank: the built-in tool names of the list become the installation's files for that MPI
 * (share/jpmpi/builtin-tools, which a test compares with the launcher's table), the dispatcher built
 * for that MPI goes first into LD_PRELOAD, and the program is started again (execv of /proc/self/exe
 * with the same arguments, same process), now with the dispatcher below it. If any of that fails it
 * says so in one line and the program runs without tools: nothing is lost.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GUARD "JPMPI_RANK_ENTRY_EXEC"

struct scan {
    const char *mpi;  /* "openmpi", "mpich" or NULL */
    int dispatcher;   /* libmpiprofilesupport.so is loaded */
};

static int base_is(const char *path, const char *name)
{
    const char *slash = strrchr(path, '/');
    return strcmp(slash ? slash + 1 : path, name) == 0;
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct scan *s = data;
    const char *n = info->dlpi_name;
    if (n == NULL || *n == '\0') {
        return 0;
    }
    if (base_is(n, "libmpi.so.40")) {
        s->mpi = "openmpi";
    } else if (base_is(n, "libmpich.so.12") || base_is(n, "libmpi.so.12")) {
        s->mpi = "mpich";
    } else if (base_is(n, "libmpiprofilesupport.so")) {
        s->dispatcher = 1;
    }
    return 0;
}

static void say(const char *what, const char *detail)
{
    fprintf(stderr, "jpmpi (module): %s%s%s; the program runs without tools\n", what, detail ? ": " : "",
            detail ? detail : "");
}

/* Appends text to buf (of size cap, used len); -1 when it does not fit. */
static int append(char *buf, size_t cap, size_t *len, const char *text)
{
    size_t n = strlen(text);
    if (*len + n + 1 > cap) {
        return -1;
    }
    memcpy(buf + *len, text, n + 1);
    *len += n;
    return 0;
}

/* Whether the comma-separated list already holds item (a part two built-in tools share is listed once). */
static int listed(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, item, n) == 0) {
            return 1;
        }
        p += len + (end ? 1 : 0);
    }
    return 0;
}

/* Adds the parts of the built-in tool `name` for `mpi` to out; 1 if it is one, 0 if not, -1 on overflow. */
static int builtin(const char *prefix, const char *mpi, const char *name, char *out, size_t cap, size_t *len)
{
    char table[PATH_MAX + 64];
    snprintf(table, sizeof table, "%s/share/jpmpi/builtin-tools", prefix);
    FILE *f = fopen(table, "r");
    if (f == NULL) {
        return 0;
    }
    char line[2048];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *save = NULL;
        char *word = strtok_r(line, " \t\n", &save);
        if (word == NULL || *word == '#' || strcmp(word, name) != 0) {
            continue;
        }
        found = 1;
        while ((word = strtok_r(NULL, " \t\n", &save)) != NULL) {
            char part[PATH_MAX + sizeof line + 16];
            char *at = strstr(word, "<mpi>");
            if (at) {
                *at = '\0';
                snprintf(part, sizeof part, "%s/%s%s%s", prefix, word, mpi, at + 5);
            } else {
                snprintf(part, sizeof part, "%s/%s", prefix, word);
            }
            if (listed(out, part)) {
                continue;
            }
            if ((*len && append(out, cap, len, ",") != 0) || append(out, cap, len, part) != 0) {
                found = -1;
            }
        }
    }
    fclose(f);
    return found;
}

/* The arguments this process was started with, from /proc/self/cmdline (NULL-terminated, malloc'd). */
static char **own_arguments(void)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f == NULL) {
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (bigger == NULL) {
                free(buf);
                buf = NULL;
            }
            buf = bigger;
        }
    }
    fclose(f);
    if (buf == NULL || len == 0) {
        free(buf);
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        n += buf[i] == '\0';
    }
    char **argv = calloc(n + 1, sizeof *argv);
    if (argv == NULL) {
        free(buf);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < len && k < n; i += strlen(buf + i) + 1) {
        argv[k++] = buf + i;
    }
    return argv;
}

__attribute__((constructor)) static void jpmpi_rank_entry(void)
{
    if (getenv(GUARD) != NULL) {
        unsetenv(GUARD); /* started again by this library: once only, and not for the rank's children */
        return;
    }
    const char *list = getenv("JPMPI_TOOLS_ENTRY");
    if (list == NULL || *list == '\0') {
        list = getenv("OMPI_MCA_ompi_tools_entry");
    }
    if (list == NULL || *list == '\0') {
        return;
    }
    struct scan s = {NULL, 0};
    dl_iterate_phdr(scan_object, &s);
    if (s.mpi == NULL || s.dispatcher) {
        return;
    }

    Dl_info info;
    char prefix[PATH_MAX];
    if (dladdr((void *)jpmpi_rank_entry, &info) == 0 || info.dli_fname == NULL
        || realpath(info.dli_fname, prefix) == NULL) {
        say("cannot tell where this library is", NULL);
        return;
    }
    for (int up = 0; up < 2; up++) { /* <prefix>/lib/libjpmpi-rank-entry.so */
        char *slash = strrchr(prefix, '/');
        if (slash == NULL) {
            return;
        }
        *slash = '\0';
    }
    char dispatcher[PATH_MAX + 64];
    snprintf(dispatcher, sizeof dispatcher, "%s/lib/%s/libmpiprofilesupport.so", prefix, s.mpi);
    if (access(dispatcher, R_OK) != 0) {
        say("no dispatcher built for this MPI", dispatcher);
        return;
    }

    static char entries[65536];
    size_t len = 0;
    char *copy = strdup(list);
    char *save = NULL;
    for (char *item = copy ? strtok_r(copy, ",", &save) : NULL; item; item = strtok_r(NULL, ",", &save)) {
        int b = builtin(prefix, s.mpi, item, entries, sizeof entries, &len);
        if (b < 0 || (b == 0 && ((len && append(entries, sizeof entries, &len, ",") != 0)
                                 || append(entries, sizeof entries, &len, item) != 0))) {
            say("the tool list is too long", NULL);
            free(copy);
            return;
        }
    }
    free(copy);

    static char preload[65536];
    const char *old = getenv("LD_PRELOAD");
    snprintf(preload, sizeof preload, "%s%s%s", dispatcher, old && *old ? ":" : "", old ? old : "");
    char **argv = own_arguments();
    if (argv == NULL) {
        say("cannot read /proc/self/cmdline", NULL);
        return;
    }
    setenv("JPMPI_TOOLS_ENTRY", entries, 1);
    setenv("LD_PRELOAD", preload, 1);
    setenv(GUARD, "1", 1);
    execv("/proc/self/exe", argv);
    unsetenv(GUARD);
    say("cannot start the program again with the dispatcher", NULL);
}
