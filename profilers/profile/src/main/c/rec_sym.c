/*
 * rec_sym.c - dladdr(3) for many addresses at once (rec_sym.h).
 *
 * glibc's dladdr finds the module holding an address (the span it is mapped in), then reads every
 * symbol of that module's dynamic symbol table for the one whose extent holds the address (the
 * highest such start; a symbol without a size matches its own address only). Here each module
 * holding any of the addresses is found once (dl_iterate_phdr, in the loader's order, which is the
 * order dladdr searches in), and its symbols are read once for all of its addresses: each symbol's
 * extent is looked up among the module's addresses, sorted, by binary search. The symbols taken are
 * the ones dladdr takes: those the hash table lists (DT_GNU_HASH), or with only DT_HASH every global
 * or weak symbol that does not bind locally; defined (or with a value), not absolute, not
 * thread-local, with a name inside the string table. src/test/c/sym_check.c compares every answer
 * with dladdr's.
 */
#define _GNU_SOURCE
#include "rec_sym.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* an address and where its answer goes */
struct jp_sym_at {
    uintptr_t addr;
    size_t at;
};

struct jp_sym_work {
    struct jp_sym_at *sorted; /* by address */
    size_t n;
    struct jp_sym *out;
    const ElfW(Sym) **best;   /* per sorted address: the symbol taken so far */
    uintptr_t page;
};

static int jp_sym_by_address(const void *a, const void *b)
{
    uintptr_t x = ((const struct jp_sym_at *)a)->addr, y = ((const struct jp_sym_at *)b)->addr;
    return x < y ? -1 : x > y;
}

/* the first sorted address at or above a */
static size_t jp_sym_first(const struct jp_sym_work *w, uintptr_t a)
{
    size_t lo = 0, hi = w->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->sorted[mid].addr < a) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* a pointer of the dynamic section: the loader has moved most by the load address; one it has not
 * (a read-only dynamic section, the vDSO's) is still below it */
static uintptr_t jp_sym_dynptr(const struct dl_phdr_info *info, ElfW(Addr) v)
{
    return v < info->dlpi_addr ? v + info->dlpi_addr : v;
}

/* symbol s of the module as the answer for those of the module's addresses (mine[k]: sorted[k] is
 * one) that its extent holds, where no higher start holds them */
static void jp_sym_offer(struct jp_sym_work *w, const struct dl_phdr_info *info, const ElfW(Sym) *s,
                         const unsigned char *mine)
{
    uintptr_t lo = info->dlpi_addr + s->st_value;
    int point = s->st_shndx == SHN_UNDEF || s->st_size == 0;
    for (size_t k = jp_sym_first(w, lo); k < w->n; k++) {
        uintptr_t a = w->sorted[k].addr;
        if (point ? a != lo : a - lo >= s->st_size) {
            break;
        }
        if (mine[k] && (w->best[k] == NULL || w->best[k]->st_value < s->st_value)) {
            w->best[k] = s;
        }
    }
}

/* whether dladdr would look at symbol s at all (strsz: the string table's size) */
static int jp_sym_usable(const ElfW(Sym) *s, ElfW(Xword) strsz)
{
    return (s->st_shndx != SHN_UNDEF || s->st_value != 0) && s->st_shndx != SHN_ABS
        && ELF64_ST_TYPE(s->st_info) != STT_TLS && s->st_name < strsz;
}

static int jp_sym_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct jp_sym_work *w = data;
    /* The module's span, from its first segment's page to the end of its last segment (the loader's
     * l_map_start and l_map_end): the loader maps a module in one piece and dladdr takes the whole
     * span as the module's, the gaps between its segments too. */
    uintptr_t first = UINTPTR_MAX, hi = 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            first = ph->p_vaddr < first ? ph->p_vaddr : first;
            hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi ? info->dlpi_addr + ph->p_vaddr + ph->p_memsz : hi;
        } else if (ph->p_type == PT_DYNAMIC) {
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        }
    }
    int main_program = !info->dlpi_name || !info->dlpi_name[0];
    uintptr_t lo = first != UINTPTR_MAX ? info->dlpi_addr + (first & ~(w->page - 1)) : UINTPTR_MAX;
    size_t from = lo < hi ? jp_sym_first(w, lo) : w->n;
    if (from == w->n || w->sorted[from].addr >= hi) {
        return 0; /* none of the addresses */
    }
    /* this module's addresses not yet placed in an earlier one */
    unsigned char *mine = calloc(w->n, 1);
    if (!mine) {
        return -1;
    }
    size_t found = 0;
    for (size_t k = from; k < w->n && w->sorted[k].addr < hi; k++) {
        struct jp_sym *o = &w->out[w->sorted[k].at];
        if (!o->known) {
            mine[k] = 1;
            found++;
            o->known = 1;
            /* the main program has no name of its own here; dladdr gives the name it was started with */
            o->module = main_program ? program_invocation_name : info->dlpi_name;
            o->base = lo; /* where its first segment is mapped */
        }
    }
    if (found && dyn) {
        const ElfW(Sym) *symtab = NULL;
        const char *strtab = NULL;
        ElfW(Xword) strsz = 0;
        const uint32_t *gnu = NULL, *hash = NULL;
        for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
            switch (d->d_tag) {
                case DT_SYMTAB: symtab = (const ElfW(Sym) *)jp_sym_dynptr(info, d->d_un.d_ptr); break;
                case DT_STRTAB: strtab = (const char *)jp_sym_dynptr(info, d->d_un.d_ptr); break;
                case DT_STRSZ: strsz = d->d_un.d_val; break;
                case DT_GNU_HASH: gnu = (const uint32_t *)jp_sym_dynptr(info, d->d_un.d_ptr); break;
                case DT_HASH: hash = (const uint32_t *)jp_sym_dynptr(info, d->d_un.d_ptr); break;
                default: break;
            }
        }
        if (symtab && strtab && gnu) {
            /* the hash table's symbols: from its first hashed one to the end of the last bucket's chain */
            uint32_t nbuckets = gnu[0], from = gnu[1], blooms = gnu[2];
            const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(gnu + 4) + blooms);
            const uint32_t *chain = buckets + nbuckets;
            uint32_t last = 0;
            for (uint32_t b = 0; b < nbuckets; b++) {
                last = buckets[b] > last ? buckets[b] : last;
            }
            if (last != 0 && last >= from) { /* (a bucket of 0 is empty) */
                while ((chain[last - from] & 1) == 0) {
                    last++;
                }
                for (uint32_t i = from; i <= last; i++) {
                    if (jp_sym_usable(&symtab[i], strsz)) {
                        jp_sym_offer(w, info, &symtab[i], mine);
                    }
                }
            }
        } else if (symtab && strtab) {
            /* without a GNU hash table: the whole table (DT_HASH's count, else up to the strings) */
            const ElfW(Sym) *end = hash ? symtab + hash[1] : (const ElfW(Sym) *)strtab;
            for (const ElfW(Sym) *s = symtab; s < end; s++) {
                int bind = ELF64_ST_BIND(s->st_info), vis = ELF64_ST_VISIBILITY(s->st_other);
                if ((bind == STB_GLOBAL || bind == STB_WEAK) && vis != STV_INTERNAL && vis != STV_HIDDEN
                    && jp_sym_usable(s, strsz)) {
                    jp_sym_offer(w, info, s, mine);
                }
            }
        }
        for (size_t k = 0; k < w->n; k++) {
            if (mine[k] && w->best[k]) {
                struct jp_sym *o = &w->out[w->sorted[k].at];
                o->sname = strtab + w->best[k]->st_name;
                o->saddr = info->dlpi_addr + w->best[k]->st_value;
            }
        }
    }
    free(mine);
    return 0;
}

int jp_sym_resolve(const uintptr_t *addr, size_t n, struct jp_sym *out)
{
    memset(out, 0, n * sizeof *out);
    if (n == 0) {
        return 0;
    }
    struct jp_sym_work w = {.n = n, .out = out};
    long page = sysconf(_SC_PAGESIZE);
    w.page = page > 0 ? (uintptr_t)page : 4096;
    w.sorted = malloc(n * sizeof *w.sorted);
    w.best = calloc(n, sizeof *w.best);
    if (!w.sorted || !w.best) {
        free(w.sorted);
        free(w.best);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        w.sorted[i] = (struct jp_sym_at){addr[i], i};
    }
    qsort(w.sorted, n, sizeof *w.sorted, jp_sym_by_address);
    int rc = dl_iterate_phdr(jp_sym_module, &w);
    free(w.sorted);
    free(w.best);
    if (rc != 0) {
        memset(out, 0, n * sizeof *out);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}
