/*
 * preload.c - libjpmpi-preload.so, the one library a site preloads into every process (Slurm's
 * TaskProlog, a module, /etc/ld.so.preload) whatever MPI the process uses, if any. It links no MPI
 * and brings in the dispatcher built for the process's MPI (<prefix>/lib/<mpi>/, found through
 * each build's jpmpi-build.properties, `mpi.library=`), never another's:
 *
 * - an MPI the program links (its libmpi is loaded before any constructor runs): the dispatcher
 *   must come before the library in the symbol search order, which only the loader's LD_PRELOAD
 *   gives, so the process executes itself again (/proc/self/exe, the same arguments and pid) with
 *   the dispatcher first in LD_PRELOAD; the new image puts LD_PRELOAD back as it was, so the
 *   program and its children see the environment they were given;
 * - an MPI loaded later (python importing mpi4py, a plugin): a dlopen of the MPI library, or of an
 *   object that needs it (DT_NEEDED), first loads the dispatcher RTLD_GLOBAL, so the new object's
 *   MPI_X bind to it; the dispatcher finds the library at the first MPI call (core.c);
 * - no MPI: nothing beyond a look at the loaded objects' names at start and at each dlopen.
 *
 * Nothing here fails a process: where something cannot be done (no /proc, exec refused) the process
 * runs on without jpmpi, with one line when it had an MPI. native-stubs/README.md, "One preload".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "jpmpi_settings.h"

#define DISPATCHER "libmpiprofilesupport.so"
#define BUILD_PROPERTIES "jpmpi-build.properties"
#define LIBRARY_KEY "mpi.library="

/* 0: watching dlopen for an MPI; 1: nothing more to do (a dispatcher is in, or never will be). */
static int done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* <prefix>/lib: the directory of this library. */
static char libdir[PATH_MAX];

/* The real dlopen, for the trampoline below (hidden: reached without the GOT). */
__attribute__((visibility("hidden"))) void *(*jpmpi_preload_real_dlopen)(const char *, int);

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int looks_like_mpi(const char *name)
{
    return strncmp(base_name(name), "libmpi", 6) == 0;
}

/* Is `soname` the library of one of this installation's builds? Its dispatcher's path in `out`. */
static int dispatcher_for(const char *soname, char *out, size_t outlen)
{
    DIR *dir = opendir(libdir);
    if (dir == NULL) {
        return 0;
    }
    int found = 0;
    char path[PATH_MAX + 300], text[4096];
    for (struct dirent *d; !found && (d = readdir(dir)) != NULL;) {
        if (d->d_name[0] == '.') {
            continue;
        }
        snprintf(path, sizeof path, "%s/%s/" BUILD_PROPERTIES, libdir, d->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            continue;
        }
        ssize_t n = read(fd, text, sizeof text - 1);
        close(fd);
        text[n > 0 ? n : 0] = '\0';
        for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
            size_t len = strcspn(line, "\n");
            size_t key = strlen(LIBRARY_KEY);
            if (len > key && strncmp(line, LIBRARY_KEY, key) == 0 && len - key == strlen(soname)
                && strncmp(line + key, soname, len - key) == 0) {
                int w = snprintf(out, outlen, "%s/%s/" DISPATCHER, libdir, d->d_name);
                found = w > 0 && (size_t)w < outlen && access(out, R_OK) == 0;
                break;
            }
        }
    }
    closedir(dir);
    return found;
}

struct scan {
    int dispatcher;       /* a dispatcher is loaded already */
    char mpi[PATH_MAX];   /* the dispatcher for the loaded MPI library, if any */
};

static int scan_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct scan *s = data;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (strcmp(base_name(name), DISPATCHER) == 0) {
        s->dispatcher = 1;
    } else if (s->mpi[0] == '\0' && looks_like_mpi(name)) {
        dispatcher_for(base_name(name), s->mpi, sizeof s->mpi);
    }
    return 0;
}

/* One line on stderr, only where an MPI process runs on without jpmpi. */
static void say(const char *what, const char *detail)
{
    dprintf(STDERR_FILENO, "jpmpi: preload: %s (%s); the program runs without jpmpi\n", what, detail);
}

/* The process again, with `dispatcher` first in LD_PRELOAD; returns only if it could not. */
static void reexec(char **argv, const char *dispatcher)
{
    const char *old = getenv("LD_PRELOAD");
    size_t len = strlen(dispatcher) + (old ? strlen(old) : 0) + 2;
    char *preload = malloc(len), *saved = malloc(old ? strlen(old) + 2 : 2);
    if (preload == NULL || saved == NULL) {
        free(preload);
        free(saved);
        return;
    }
    snprintf(preload, len, "%s%s%s", dispatcher, old && *old ? ":" : "", old ? old : "");
    /* "1<value>": LD_PRELOAD was set to value; "0": it was unset (/etc/ld.so.preload) */
    snprintf(saved, old ? strlen(old) + 2 : 2, "%s%s", old ? "1" : "0", old ? old : "");
    if (setenv(JPMPI_SETTING_PRELOAD_SAVED, saved, 1) == 0 && setenv("LD_PRELOAD", preload, 1) == 0) {
        execv("/proc/self/exe", argv);
        say("cannot execute the program again with the dispatcher", "/proc/self/exe");
    }
    unsetenv(JPMPI_SETTING_PRELOAD_SAVED);
    if (old) {
        setenv("LD_PRELOAD", old, 1);
    } else {
        unsetenv("LD_PRELOAD");
    }
    free(preload);
    free(saved);
}

/* glibc passes a shared object's constructors the program's arguments. */
__attribute__((constructor)) static void preload_start(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)envp;
    const char *saved = getenv(JPMPI_SETTING_PRELOAD_SAVED);
    if (saved != NULL) { /* the image this library executed: LD_PRELOAD back as the program had it */
        if (saved[0] == '1') {
            setenv("LD_PRELOAD", saved + 1, 1);
        } else {
            unsetenv("LD_PRELOAD");
        }
        unsetenv(JPMPI_SETTING_PRELOAD_SAVED);
        done = 1;
        return;
    }
    Dl_info self;
    if (getauxval(AT_SECURE) || !dladdr((void *)preload_start, &self) || self.dli_fname == NULL
        || realpath(self.dli_fname, libdir) == NULL) {
        done = 1; /* set-user-ID programs: the loader ignores LD_PRELOAD there anyway */
        return;
    }
    *strrchr(libdir, '/') = '\0';
    struct scan s = {0};
    dl_iterate_phdr(scan_object, &s);
    if (s.dispatcher) {
        done = 1; /* bin/jpmpi run, or the user's own preload: theirs */
    } else if (s.mpi[0] != '\0') {
        done = 1;
        reexec(argv, s.mpi);
    }
}

/* The dispatcher for the MPI library `path` needs (a DT_NEEDED entry), if any: the ELF's dynamic
 * section read from the file, every offset checked against its size. */
static int needed_mpi(const char *path, char *out, size_t outlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        return 0;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(ElfW(Ehdr))) {
        close(fd);
        return 0;
    }
    size_t size = (size_t)st.st_size;
    const unsigned char *file = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (file == MAP_FAILED) {
        return 0;
    }
    int found = 0;
    const ElfW(Ehdr) *eh = (const void *)file;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == (__ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32)
        && eh->e_phoff < size && eh->e_phnum <= (size - eh->e_phoff) / sizeof(ElfW(Phdr))) {
        const ElfW(Phdr) *ph = (const void *)(file + eh->e_phoff);
        const ElfW(Dyn) *dyn = NULL;
        size_t ndyn = 0;
        for (int i = 0; i < eh->e_phnum; i++) {
            if (ph[i].p_type == PT_DYNAMIC && ph[i].p_offset < size && ph[i].p_filesz <= size - ph[i].p_offset) {
                dyn = (const void *)(file + ph[i].p_offset);
                ndyn = ph[i].p_filesz / sizeof *dyn;
            }
        }
        ElfW(Addr) strtab = 0;
        for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
            if (dyn[i].d_tag == DT_STRTAB) {
                strtab = dyn[i].d_un.d_ptr;
            }
        }
        size_t stroff = 0, strend = 0; /* the string table's file offset: through the PT_LOAD holding it */
        for (int i = 0; i < eh->e_phnum && strtab; i++) {
            if (ph[i].p_type == PT_LOAD && strtab >= ph[i].p_vaddr && strtab - ph[i].p_vaddr < ph[i].p_filesz) {
                stroff = ph[i].p_offset + (strtab - ph[i].p_vaddr);
                strend = ph[i].p_offset + ph[i].p_filesz;
            }
        }
        strend = strend < size ? strend : size;
        for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL && stroff && !found; i++) {
            if (dyn[i].d_tag == DT_NEEDED && dyn[i].d_un.d_val < strend - stroff) {
                const char *name = (const char *)file + stroff + dyn[i].d_un.d_val;
                size_t room = strend - stroff - dyn[i].d_un.d_val;
                found = strnlen(name, room) < room && looks_like_mpi(name) && dispatcher_for(name, out, outlen);
            }
        }
    }
    munmap((void *)file, size);
    return found;
}

/* Called by the dlopen trampoline before the real dlopen, with its arguments. */
__attribute__((visibility("hidden"))) void jpmpi_preload_before_dlopen(const char *file)
{
    if (__atomic_load_n(&jpmpi_preload_real_dlopen, __ATOMIC_ACQUIRE) == NULL) {
        __atomic_store_n(&jpmpi_preload_real_dlopen, (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen"),
                         __ATOMIC_RELEASE);
    }
    if (__atomic_load_n(&done, __ATOMIC_ACQUIRE) || file == NULL || libdir[0] == '\0') {
        return;
    }
    pthread_mutex_lock(&lock);
    char dispatcher[PATH_MAX];
    struct scan s = {0};
    if (!done) {
        dl_iterate_phdr(scan_object, &s);
        if (s.dispatcher || s.mpi[0] != '\0') {
            done = 1; /* in already, or an MPI came in some other way: too late to interpose it */
        } else if ((looks_like_mpi(file) && dispatcher_for(base_name(file), dispatcher, sizeof dispatcher))
                   || (strchr(file, '/') && needed_mpi(file, dispatcher, sizeof dispatcher))) {
            /* done first: the dispatcher's constructor calls dlopen itself (this function, again) */
            __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
            if (jpmpi_preload_real_dlopen(dispatcher, RTLD_NOW | RTLD_GLOBAL) == NULL) {
                say("cannot load the dispatcher", dlerror());
            }
        }
    }
    pthread_mutex_unlock(&lock);
}

/*
 * dlopen itself: the check above, then a jump (not a call) to the real dlopen, which finds its
 * caller from its return address (the caller's RUNPATH and namespace): that stays the program's.
 * x86-64 only; elsewhere an MPI loaded at run time is not seen (the linked case still is).
 */
#if defined(__x86_64__)
__asm__(".text\n"
        ".globl dlopen\n"
        ".type dlopen, @function\n"
        "dlopen:\n"
        "    .cfi_startproc\n"
        "    push %rdi\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    push %rsi\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    sub $8, %rsp\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    call jpmpi_preload_before_dlopen\n"
        "    add $8, %rsp\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    pop %rsi\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    pop %rdi\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    jmp *jpmpi_preload_real_dlopen(%rip)\n"
        "    .cfi_endproc\n"
        ".size dlopen, .-dlopen\n");
#endif
