/*
 * The call site of a Fortran program's MPI call (native-stubs/README.md, "The caller word").
 *
 * A Fortran program calls the MPI library's Fortran layer (mpi_send_, in libmpi_mpifh or
 * libmpichfort), which calls MPI_Send or PMPI_Send: that call reaches the `fort` entry, whose
 * return address is the layer's, the same for every call of the program. The program's site is
 * the return address of the layer's frame, one frame (or a few) further up. Debian's MPI libraries
 * are built without frame pointers, so the frames are found with the layer's own unwind
 * information, once per return address: the distance from the entry's CFA (the stack pointer its
 * caller has after the call returns) to the layer function's CFA is fixed at a given return
 * address when the function keeps its stack frame a constant size, which the layer's functions do
 * (a few registers pushed, a fixed frame: no alloca). So the first call at each of the layer's
 * return addresses walks the stack once with libgcc's unwinder and keeps that distance; every
 * later call reads the program's return address with a table lookup and a load per layer frame.
 *
 * x86_64 only: there the return address sits just below the CFA. Elsewhere, and whenever the walk
 * does not agree with the frames' arithmetic, the site stays the layer's return address (what the
 * caller word held before).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unwind.h>

#include "jpmpi_core.h"

#define FORT_RANGES 32           /* executable segments of the Fortran layer's objects */
#define FORT_FRAMES 1024         /* the layer's return addresses known (a power of 2) */
#define FORT_DEPTH 4             /* the most layer frames between the entry and the program */
#define FORT_WALK 24             /* frames the learning walk looks at */

static struct {
    uintptr_t lo, hi;
} fort_ranges[FORT_RANGES];
static int fort_nranges;

/* ra -> the distance from the CFA of the frame ra returns from to the CFA of ra's own frame;
 * 0 while a slot is free, -1 when the walk could not tell (the site stays the layer's). */
static struct {
    _Atomic(uintptr_t) ra;
    _Atomic(intptr_t) step;
} fort_frames[FORT_FRAMES];

/* The Fortran modules' libraries, which call the layer (Open MPI's `use mpi_f08` and `use mpi`
 * bindings call its ompi_*_f functions): their frames are stepped over too. MPICH's are in the
 * layer's own object. */
static const char *const fort_modules[] = {"libmpi_usempif08.so", "libmpi_usempi_ignore_tkr.so", "libmpi_usempi.so",
                                           NULL};

static int fort_named(const char *base, const char *const *names)
{
    for (int i = 0; names[i]; i++) {
        if (strncmp(base, names[i], strlen(names[i])) == 0) {
            return 1;
        }
    }
    return 0;
}

static int fort_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    const char *base = strrchr(info->dlpi_name, '/');
    base = base ? base + 1 : info->dlpi_name;
    if (!fort_named(base, jpmpi_fortran_libraries) && !fort_named(base, fort_modules)) {
        return 0;
    }
    for (int i = 0; i < info->dlpi_phnum && fort_nranges < FORT_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            fort_ranges[fort_nranges].lo = info->dlpi_addr + ph->p_vaddr;
            fort_ranges[fort_nranges].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
            fort_nranges++;
        }
    }
    return 0;
}

void jpmpi_fort_layer_scan(void)
{
    if (fort_nranges == 0) {
        dl_iterate_phdr(fort_object, NULL);
    }
}

static int in_layer(uintptr_t pc)
{
    for (int i = 0; i < fort_nranges; i++) {
        if (pc >= fort_ranges[i].lo && pc < fort_ranges[i].hi) {
            return 1;
        }
    }
    return 0;
}

static unsigned fort_hash(uintptr_t ra)
{
    return (unsigned)((ra >> 2) * 0x9e3779b1u) & (FORT_FRAMES - 1);
}

/* The step known for ra; 0 when unknown yet. */
static intptr_t fort_step(uintptr_t ra)
{
    unsigned h = fort_hash(ra);
    for (unsigned i = 0; i < FORT_FRAMES; i++) {
        unsigned at = (h + i) & (FORT_FRAMES - 1);
        uintptr_t r = atomic_load_explicit(&fort_frames[at].ra, memory_order_acquire);
        if (r == ra) {
            return atomic_load_explicit(&fort_frames[at].step, memory_order_acquire);
        }
        if (r == 0) {
            return 0;
        }
    }
    return 0;
}

/* Keeps ra's step (the table full: forgotten, learned again next time). A slot is claimed by its
 * address first and only its claimer writes the step, so two threads claiming one slot for different
 * addresses cannot leave one's step under the other's address; until the step is there the slot
 * reads 0 (not known yet: the call keeps the layer's address). Two threads learning the same address
 * learn the same step. */
static void fort_keep(uintptr_t ra, intptr_t step)
{
    unsigned h = fort_hash(ra);
    for (unsigned i = 0; i < FORT_FRAMES; i++) {
        unsigned at = (h + i) & (FORT_FRAMES - 1);
        uintptr_t expected = 0;
        if (atomic_compare_exchange_strong_explicit(&fort_frames[at].ra, &expected, ra, memory_order_relaxed,
                                                    memory_order_relaxed)) {
            atomic_store_explicit(&fort_frames[at].step, step, memory_order_release);
            return;
        }
        if (expected == ra) {
            return;
        }
    }
}

struct fort_walk {
    uintptr_t ip[FORT_WALK];
    uintptr_t cfa[FORT_WALK];
    int n;
};

static _Unwind_Reason_Code fort_frame(struct _Unwind_Context *ctx, void *data)
{
    struct fort_walk *w = data;
    if (w->n == FORT_WALK) {
        return _URC_END_OF_STACK;
    }
    w->ip[w->n] = _Unwind_GetIP(ctx);
    w->cfa[w->n] = _Unwind_GetCFA(ctx);
    w->n++;
    return _URC_NO_REASON;
}

/* Walks the stack once, from the entry whose CFA is `cfa` and whose return address is `ra`: for each
 * of the layer's frames from there up, the step from its stack pointer to its CFA (libgcc reports a
 * frame's stack pointer, the CFA of the frame it called, as its CFA), checked against the return
 * address the arithmetic will read. */
static __attribute__((noinline)) void fort_learn(uintptr_t ra, uintptr_t cfa)
{
    struct fort_walk w = {.n = 0};
    _Unwind_Backtrace(fort_frame, &w);
    int at = -1;
    for (int i = 0; i < w.n; i++) {
        if (w.ip[i] == ra && w.cfa[i] == cfa) {
            at = i;
            break;
        }
    }
    if (at < 0) {
        fort_keep(ra, -1);
        return;
    }
    for (int i = at; i + 1 < w.n && in_layer(w.ip[i]); i++) {
        intptr_t step = (intptr_t)(w.cfa[i + 1] - w.cfa[i]);
        int agrees = step > 0 && *(const uintptr_t *)(w.cfa[i + 1] - sizeof(uintptr_t)) == w.ip[i + 1];
        fort_keep(w.ip[i], agrees ? step : -1);
    }
}

void *jpmpi_fort_site(void *ra0, void *cfa0)
{
#if defined(__x86_64__)
    uintptr_t ra = (uintptr_t)ra0, cfa = (uintptr_t)cfa0;
    for (int depth = 0; depth < FORT_DEPTH && in_layer(ra); depth++) {
        intptr_t step = fort_step(ra);
        if (step == 0) {
            fort_learn(ra, cfa);
            step = fort_step(ra);
        }
        if (step <= 0) {
            return ra0;
        }
        cfa += (uintptr_t)step;
        ra = *(const uintptr_t *)(cfa - sizeof(uintptr_t));
    }
    return in_layer(ra) ? ra0 : (void *)ra;
#else
    (void)cfa0;
    return ra0;
#endif
}
