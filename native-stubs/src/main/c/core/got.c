/*
 * got.c - rewriting a loaded object's references to MPI functions.
 *
 * A level's calls to PMPI_X (and MPI_X) go through its GOT/PLT slots. Pointing each slot straight
 * at the function the call must reach (the next level's MPI_X, or the MPI library's PMPI_X) gives
 * the layered semantics with no per-call work at all: the "depth" of a call is which object's
 * slot it went through, fixed once at start-up. Only the object's own relocations are touched.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "jpmpi_core.h"

#if defined(__x86_64__)
#define R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define R_GLOB_DAT R_X86_64_GLOB_DAT
#define R_ABS R_X86_64_64
#elif defined(__aarch64__)
#define R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define R_GLOB_DAT R_AARCH64_GLOB_DAT
#define R_ABS R_AARCH64_ABS64
#elif defined(__powerpc64__)
#define R_JUMP_SLOT R_PPC64_JMP_SLOT
#define R_GLOB_DAT R_PPC64_GLOB_DAT
#define R_ABS R_PPC64_ADDR64
#else
#error "jpmpi: relocation types for this architecture are not known yet (see got.c)"
#endif

#if __ELF_NATIVE_CLASS == 64
#define RELOC_TYPE(i) ELF64_R_TYPE(i)
#define RELOC_SYM(i) ELF64_R_SYM(i)
#else
#define RELOC_TYPE(i) ELF32_R_TYPE(i)
#define RELOC_SYM(i) ELF32_R_SYM(i)
#endif

struct relro_find {
    ElfW(Addr) base;
    uintptr_t start, end;
};

static int find_relro(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct relro_find *f = data;
    if (info->dlpi_addr != f->base) {
        return 0;
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            f->start = f->base + info->dlpi_phdr[i].p_vaddr;
            f->end = f->start + info->dlpi_phdr[i].p_memsz;
        }
    }
    return 1;
}

uintptr_t jpmpi_dyn_addr(const struct link_map *map, uint64_t value)
{
    return value < map->l_addr ? map->l_addr + value : value;
}

static int write_slot(jpmpi_fn *slot, jpmpi_fn value, const struct relro_find *relro, char *err, size_t errlen)
{
    if (*slot == value) {
        return 0;
    }
    uintptr_t a = (uintptr_t)slot;
    if (a >= relro->start && a < relro->end) {
        long page = sysconf(_SC_PAGESIZE);
        void *p = (void *)(a & ~(uintptr_t)(page - 1));
        if (mprotect(p, (size_t)page, PROT_READ | PROT_WRITE) != 0) {
            snprintf(err, errlen, "mprotect of a read-only GOT page failed: %s", strerror(errno));
            return -1;
        }
        __atomic_store_n(slot, value, __ATOMIC_RELEASE);
        mprotect(p, (size_t)page, PROT_READ);
        return 1;
    }
    /* one store: another thread may be calling through the slot (a level leaving the chain) */
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    return 1;
}

struct tables {
    const ElfW(Sym) *symtab;
    const char *strtab;
};

static int patch_range(const struct link_map *map, const struct tables *t, uintptr_t relocs, size_t size,
                       int rela, jpmpi_target_fn target, void *ctx, const struct relro_find *relro,
                       char *err, size_t errlen)
{
    size_t entsize = rela ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel));
    int patched = 0;
    for (size_t off = 0; off + entsize <= size; off += entsize) {
        const ElfW(Rel) *r = (const ElfW(Rel) *)(relocs + off); /* Rela begins like Rel */
        unsigned type = (unsigned)RELOC_TYPE(r->r_info);
        if (type != R_JUMP_SLOT && type != R_GLOB_DAT && type != R_ABS) {
            continue;
        }
        if (type == R_ABS && rela && ((const ElfW(Rela) *)r)->r_addend != 0) {
            continue; /* a pointer into the middle of a function: not a call target */
        }
        const char *name = t->strtab + t->symtab[RELOC_SYM(r->r_info)].st_name;
        if (name[0] != 'M' && name[0] != 'P') {
            continue;
        }
        jpmpi_fn to = target(name, ctx);
        if (to == NULL) {
            continue;
        }
        int rc = write_slot((jpmpi_fn *)(map->l_addr + r->r_offset), to, relro, err, errlen);
        if (rc < 0) {
            return -1;
        }
        patched += rc;
    }
    return patched;
}

int jpmpi_patch_object(struct link_map *map, jpmpi_target_fn target, void *ctx, char *err, size_t errlen)
{
    struct tables t = {0};
    uintptr_t jmprel = 0, rel = 0, rela = 0;
    size_t pltrelsz = 0, relsz = 0, relasz = 0;
    ElfW(Sxword) pltrel = DT_RELA;
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: t.symtab = (const ElfW(Sym) *)jpmpi_dyn_addr(map, d->d_un.d_ptr); break;
        case DT_STRTAB: t.strtab = (const char *)jpmpi_dyn_addr(map, d->d_un.d_ptr); break;
        case DT_JMPREL: jmprel = jpmpi_dyn_addr(map, d->d_un.d_ptr); break;
        case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
        case DT_PLTREL: pltrel = (ElfW(Sxword))d->d_un.d_val; break;
        case DT_RELA: rela = jpmpi_dyn_addr(map, d->d_un.d_ptr); break;
        case DT_RELASZ: relasz = d->d_un.d_val; break;
        case DT_REL: rel = jpmpi_dyn_addr(map, d->d_un.d_ptr); break;
        case DT_RELSZ: relsz = d->d_un.d_val; break;
        default: break;
        }
    }
    if (t.symtab == NULL || t.strtab == NULL) {
        snprintf(err, errlen, "%s has no dynamic symbol table", map->l_name);
        return -1;
    }
    struct relro_find relro = {map->l_addr, 0, 0};
    dl_iterate_phdr(find_relro, &relro);
    int total = 0;
    struct { uintptr_t at; size_t size; int rela; } ranges[] = {
        {jmprel, pltrelsz, pltrel == DT_RELA}, {rela, relasz, 1}, {rel, relsz, 0},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        if (ranges[i].at == 0) {
            continue;
        }
        int n = patch_range(map, &t, ranges[i].at, ranges[i].size, ranges[i].rela, target, ctx, &relro,
                            err, errlen);
        if (n < 0) {
            return -1;
        }
        total += n;
    }
    return total;
}
