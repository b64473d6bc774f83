/*
 * object.c - what a C level's file is, said in words before dlopen would say something misleading
 * ("No such file or directory" for an .so of another architecture), and which MPI library it
 * needs, once loaded (a tool built against the other MPI loads fine and crashes at MPI_Finalize).
 * The launcher (io.jpmpi.tools.ElfFile) says the same with the same words.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "jpmpi_core.h"

static const struct {
    int machine;
    const char *name;
} machines[] = {
    {EM_X86_64, "x86-64"}, {EM_386, "i386"}, {EM_AARCH64, "aarch64"}, {EM_ARM, "arm"},
    {EM_PPC64, "ppc64"}, {EM_PPC, "ppc"}, {EM_S390, "s390x"}, {EM_RISCV, "riscv"},
};

static const char *machine_name(int machine, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++) {
        if (machines[i].machine == machine) {
            return machines[i].name;
        }
    }
    snprintf(buf, len, "machine %d", machine);
    return buf;
}

int jpmpi_object_check(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s", errno == ENOENT ? "no such file" : strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "is a directory");
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "is not a regular file"); /* a FIFO would block the read below */
        return -1;
    }
    unsigned char ident[EI_NIDENT + 4] = {0};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot read it (%s)", strerror(errno));
        return -1;
    }
    ssize_t got = read(fd, ident, sizeof ident); /* e_ident, e_type, e_machine: the same in both classes */
    close(fd);
    if (got < (ssize_t)sizeof ident || memcmp(ident, ELFMAG, SELFMAG) != 0) {
        snprintf(err, errlen, "is not an ELF shared library (no ELF header)");
        return -1;
    }
    /* The dispatcher's own header says what this process runs. */
    Dl_info self;
    if (!dladdr((void *)jpmpi_object_check, &self) || self.dli_fbase == NULL) {
        return 0;
    }
    const unsigned char *own = self.dli_fbase;
    int little = ident[EI_DATA] == ELFDATA2LSB;
    int type = little ? ident[EI_NIDENT] | ident[EI_NIDENT + 1] << 8 : ident[EI_NIDENT] << 8 | ident[EI_NIDENT + 1];
    int machine = little ? ident[EI_NIDENT + 2] | ident[EI_NIDENT + 3] << 8
                         : ident[EI_NIDENT + 2] << 8 | ident[EI_NIDENT + 3];
    int own_machine = ((const ElfW(Ehdr) *)own)->e_machine;
    if (machine != own_machine || ident[EI_CLASS] != own[EI_CLASS] || ident[EI_DATA] != own[EI_DATA]) {
        char a[32], b[32];
        snprintf(err, errlen, "is an ELF for %s%s, not %s", machine_name(machine, a, sizeof a),
                 machine == own_machine ? (ident[EI_CLASS] == ELFCLASS32 ? " (32-bit)" : " (64-bit)") : "",
                 machine_name(own_machine, b, sizeof b));
        return -1;
    }
    if (type != ET_DYN) {
        snprintf(err, errlen, "is not an ELF shared library (%s)", type == ET_EXEC ? "an executable"
                 : type == ET_REL ? "an object file" : type == ET_CORE ? "a core dump" : "an ELF of another type");
        return -1;
    }
    return 0;
}

/* Is the object `name` (loaded already, as a dependency) an MPI library: does it define PMPI_Init itself? */
static struct link_map *loaded_mpi(const char *name)
{
    void *h = dlopen(name, RTLD_NOLOAD | RTLD_LAZY);
    if (h == NULL) {
        return NULL;
    }
    struct link_map *map = NULL, *owner = NULL;
    Dl_info info;
    void *init = dlsym(h, "PMPI_Init");
    if (dlinfo(h, RTLD_DI_LINKMAP, &map) != 0 || init == NULL
        || !dladdr1(init, &info, (void **)&owner, RTLD_DL_LINKMAP) || owner != map) {
        map = NULL;
    }
    dlclose(h);
    return map;
}

const char *jpmpi_object_other_mpi(struct link_map *map, struct link_map *mpi)
{
    const char *strtab = NULL;
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_STRTAB) {
            strtab = (const char *)jpmpi_dyn_addr(map, d->d_un.d_ptr);
        }
    }
    Dl_info self;
    struct link_map *own = NULL;
    dladdr1((void *)jpmpi_object_other_mpi, &self, (void **)&own, RTLD_DL_LINKMAP);
    for (const ElfW(Dyn) *d = map->l_ld; strtab && d->d_tag != DT_NULL; d++) {
        if (d->d_tag != DT_NEEDED) {
            continue;
        }
        const char *name = strtab + d->d_un.d_val;
        struct link_map *lib = loaded_mpi(name);
        /* this dispatcher defines PMPI_Init too: a tool linked with -lmpiprofilesupport gets it */
        if (lib != NULL && lib != mpi && lib != own) {
            return name;
        }
    }
    return NULL;
}
