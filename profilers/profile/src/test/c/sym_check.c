/*
 * sym_check.c - rec_sym.c's answers against dladdr's, address by address (SiteSymbolsTest runs it).
 *
 * The addresses: in every loaded module (this program, the C library, the loader, the vDSO, and the
 * libraries named on the command line, dlopened first: a C++ library has many symbols, aliases and
 * symbols of no size), densely at the start of each loaded segment (every 8 bytes over 64 KiB: function
 * starts, the padding between functions), then at a spread of points over the rest; and addresses no
 * module holds (0, the stack, the heap). With the test library of sysv_syms.c loaded (only the old
 * hash table, DT_HASH: rec_sym.c's second path), around each of its symbols too: one byte before,
 * at, one after, at the last byte and just past the end. Prints the mismatches and a summary line
 * (with how many modules have no GNU hash table); exit 1 on any.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_sym.h"

struct list {
    uintptr_t *a;
    size_t n, cap;
    int modules;
    int sysv; /* modules without DT_GNU_HASH */
};

static void add(struct list *l, uintptr_t a)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4096;
        l->a = realloc(l->a, l->cap * sizeof *l->a);
        if (!l->a) {
            perror("realloc");
            exit(2);
        }
    }
    l->a[l->n++] = a;
}

static int segments(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct list *l = data;
    l->modules++;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC) {
            int gnu = 0;
            for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr); d->d_tag != DT_NULL; d++) {
                gnu |= d->d_tag == DT_GNU_HASH;
            }
            l->sysv += !gnu;
        }
        if (ph->p_type != PT_LOAD || ph->p_memsz == 0) {
            continue;
        }
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        uintptr_t dense = ph->p_memsz < 65536 ? ph->p_memsz : 65536;
        for (uintptr_t off = 0; off < dense; off += 8) {
            add(l, start + off);
        }
        uintptr_t step = ph->p_memsz / 4000 + 1;
        for (uintptr_t off = dense; off < ph->p_memsz; off += step) {
            add(l, start + off + (off * 7919) % 16);
        }
        add(l, start + ph->p_memsz - 1);
        add(l, start + ph->p_memsz); /* just past the segment */
    }
    return 0;
}

static int same(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL)) {
            fprintf(stderr, "sym_check: cannot load %s: %s\n", argv[i], dlerror());
            return 2;
        }
    }
    struct list l = {0};
    dl_iterate_phdr(segments, &l);
    /* sysv_syms.c's symbols, where it is loaded (the sizes as its source makes them, or 0: labels) */
    static const struct { const char *name; size_t size; } sysv[] = {
        {"sysv_small", 4}, {"sysv_larger", 64}, {"sysv_weak", 4}, {"sysv_aliased", 4}, {"sysv_alias_one", 4},
        {"sysv_alias_weak", 4}, {"sysv_protected", 8}, {"sysv_calls_local", 16}, {"sysv_data", 256},
        {"sysv_bss", 4096}, {"sysv_rodata", 44}, {"sysv_nosize_a", 0}, {"sysv_nosize_b", 0}, {"sysv_nosize_c", 0},
    };
    int sysv_found = 0;
    for (size_t i = 0; i < sizeof sysv / sizeof sysv[0]; i++) {
        uintptr_t a = (uintptr_t)dlsym(RTLD_DEFAULT, sysv[i].name);
        if (a) {
            sysv_found++;
            add(&l, a - 1);
            add(&l, a);
            add(&l, a + 1);
            add(&l, a + sysv[i].size - 1);
            add(&l, a + sysv[i].size);
        }
    }
    int local;
    void *heap = malloc(64);
    add(&l, 0);
    add(&l, 1);
    add(&l, (uintptr_t)&local);
    add(&l, (uintptr_t)heap);
    add(&l, UINTPTR_MAX);
    struct jp_sym *out = malloc(l.n * sizeof *out);
    if (!out || jp_sym_resolve(l.a, l.n, out) != 0) {
        fprintf(stderr, "sym_check: out of memory\n");
        return 2;
    }
    size_t bad = 0, named = 0, known = 0;
    for (size_t i = 0; i < l.n; i++) {
        Dl_info d;
        memset(&d, 0, sizeof d);
        int k = dladdr((void *)l.a[i], &d) && d.dli_fname;
        const struct jp_sym *o = &out[i];
        int ok = k == o->known
            && (!k || (same(d.dli_fname, o->module) && (uintptr_t)d.dli_fbase == o->base && same(d.dli_sname, o->sname)
                       && (!d.dli_sname || (uintptr_t)d.dli_saddr == o->saddr)));
        known += k;
        named += k && d.dli_sname;
        if (!ok && bad++ < 20) {
            printf("mismatch at %#lx: dladdr %d %s %#lx %s %#lx; rec_sym %d %s %#lx %s %#lx\n", (unsigned long)l.a[i], k,
                   k ? d.dli_fname : "-", k ? (unsigned long)d.dli_fbase : 0UL, d.dli_sname ? d.dli_sname : "-",
                   (unsigned long)d.dli_saddr, o->known, o->module ? o->module : "-", (unsigned long)o->base,
                   o->sname ? o->sname : "-", (unsigned long)o->saddr);
        }
    }
    printf("compared %zu addresses in %d modules (%d without a GNU hash table; %d of the sysv library's symbols):"
           " %zu in a module, %zu of them in a symbol; %zu mismatches\n",
           l.n, l.modules, l.sysv, sysv_found, known, named, bad);
    free(heap);
    free(out);
    free(l.a);
    return bad ? 1 : 0;
}
