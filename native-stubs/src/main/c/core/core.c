/*
 * core.c - the level table of libmpiprofilesupport.so.
 *
 * At load time (a constructor, or the first MPI call if something calls MPI earlier) the core
 * reads the entry list, dlopens every C level, finds which MPI functions each one defines (its
 * own symbols only: dlsym also finds the level's dependencies, libmpi among them), and links the
 * chain (the isolation rule: every level sees exactly the application's calls):
 *   - the application's MPI_X enters at the first level >= 0 defining X, its PMPI_X at the first
 *     level >= 1 (the generated exports jump through jpmpi_entry / jpmpi_pentry, which hold the
 *     generated entries, or the library's PMPI_X itself where no level defines X);
 *   - level k's own references are rewritten (got.c): its PMPI_X to X's guard (the generated
 *     jpmpi_guard), which goes on to the next level defining X when the level is inside its own
 *     MPI_X wrapper and to the library otherwise; its MPI_X to its own definition, or the library;
 *   - the MPI library's Fortran layer enters at the level the `fort` item names (default: top).
 * MPI_Pcontrol is delivered by the core to every level that defines it, then to the library.
 *
 * With a Java level (a .jar item) in the list, nothing is loaded at load time: the tables keep
 * their boot stubs, and the first MPI call of the process loads the C levels, starts the JVM
 * (java.c), lets the Java runtime install an upcall stub for each function its interceptors
 * override (through the bridge), links the chain, and only then goes on. The Java runtime may
 * relink later, to switch a faulty level off.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <mpi.h>
#include "jpmpi_core.h"
#include "jpmpi_settings.h"

struct level {
    const char *entry;          /* the entry-list item */
    int java;                   /* a Java level: fn[] filled by the Java runtime */
    void *handle;
    struct link_map *map;
    jpmpi_fn *fn;               /* jpmpi_defs[k]: its own definitions; NULL where it defines none */
    int defined;
};

static struct level levels[JPMPI_MAX_LEVELS];
static int nlevels;
/* left[k][slot]: level k left the chain for slot (jpmpi_level_leave); its definition stays in
 * jpmpi_defs, for a call already on its way to it. */
static unsigned char left[JPMPI_MAX_LEVELS][JPMPI_NSLOTS];
static jpmpi_fn bottom[JPMPI_NSLOTS]; /* the library's PMPI_X, NULL where it lacks X */

/* The routing state and tables (jpmpi_core.h). */
__thread unsigned jpmpi_cur __attribute__((tls_model("initial-exec")));
__thread void *jpmpi_caller __attribute__((tls_model("initial-exec")));
__thread void *jpmpi_entry_ra __attribute__((tls_model("initial-exec")));
unsigned char jpmpi_from[JPMPI_NSLOTS][JPMPI_MAX_LEVELS + 1];
jpmpi_fn jpmpi_defs[JPMPI_MAX_LEVELS][JPMPI_NSLOTS];
jpmpi_fn jpmpi_lone[JPMPI_NSLOTS];
jpmpi_fn jpmpi_bottom[JPMPI_NSLOTS]; /* bottom[], or jpmpi_missing[] where that is NULL */
__thread struct jpmpi_fp_frame *jpmpi_fp_top __attribute__((tls_model("initial-exec")));
jpmpi_fn jpmpi_jdefs[JPMPI_MAX_LEVELS][JPMPI_NSLOTS];
int jpmpi_fort_pos;
static struct jpmpi_entry_list entries;
static struct jpmpi_site site; /* the site's tools added to `entries` (site.c) */
static const char *entry_source = JPMPI_SETTING_TOOLS_ENTRY;
static pthread_once_t boot_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t link_lock = PTHREAD_MUTEX_INITIALIZER;
static int early_state;  /* 0: not yet, 1: MPI present and entry list parsed, -1: inert */
static int has_java;

/* ---- names → slots ---- */

#define NAME_TABLE_SIZE 4096 /* power of two, at most a quarter full */
_Static_assert(NAME_TABLE_SIZE >= 4 * JPMPI_NSLOTS, "grow NAME_TABLE_SIZE");
static short name_slot[NAME_TABLE_SIZE]; /* slot + 1; 0 = empty */

static unsigned hash_name(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 16777619u;
    }
    return h;
}

static void names_init(void)
{
    for (int slot = 0; slot < JPMPI_NSLOTS; slot++) {
        unsigned i = hash_name(jpmpi_slot_names[slot]) & (NAME_TABLE_SIZE - 1);
        while (name_slot[i]) {
            i = (i + 1) & (NAME_TABLE_SIZE - 1);
        }
        name_slot[i] = (short)(slot + 1);
    }
}

/* Slot of "MPI_X" or "PMPI_X" (sets *pmpi), or -1. */
static int slot_of(const char *name, int *pmpi)
{
    int p = name[0] == 'P';
    const char *mpi = name + p;
    if (strncmp(mpi, "MPI", 3) != 0) {
        return -1;
    }
    for (unsigned i = hash_name(mpi) & (NAME_TABLE_SIZE - 1); name_slot[i]; i = (i + 1) & (NAME_TABLE_SIZE - 1)) {
        int slot = name_slot[i] - 1;
        if (strcmp(jpmpi_slot_names[slot], mpi) == 0) {
            if (pmpi) {
                *pmpi = p;
            }
            return slot;
        }
    }
    return -1;
}

/* ---- reporting ---- */

static const char *rank_text(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", NULL};
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            return v;
        }
    }
    return NULL;
}

static void fail_line(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void fail(const struct jpmpi_item *item, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));

/* One line on stderr, then stop before the program runs. */
static void fail_line(const char *fmt, ...)
{
    char text[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    const char *rank = rank_text();
    char where[64] = "";
    if (rank) {
        snprintf(where, sizeof where, " (rank %s)", rank);
    }
    dprintf(STDERR_FILENO, "jpmpi%s: %s\n", where, text);
    _exit(JPMPI_EXIT_BAD_ENTRY);
}

/* "JPMPI_TOOLS_ENTRY item 2 'libx.so': reason" (without an item: "JPMPI_TOOLS_ENTRY: reason"). */
static void fail(const struct jpmpi_item *item, const char *fmt, ...)
{
    char reason[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (item && item->site) {
        fail_line("site configuration %s tools item %d '%s': %s", site.file, item->position, item->text, reason);
    }
    if (item) {
        fail_line("%s item %d '%s': %s", entry_source, item->position, item->text, reason);
    }
    fail_line("%s: %s", entry_source, reason);
}

void jpmpi_core_missing(int slot)
{
    dprintf(STDERR_FILENO, "jpmpi: %s was called, but the %s library in this process does not define P%s\n",
            jpmpi_slot_names[slot], jpmpi_impl_name, jpmpi_slot_names[slot]);
    abort();
}

/* ---- resolution ---- */

/* Level k's definition of slot as the chain routes it: NULL where it defines none, or left. */
static jpmpi_fn routed(int k, int slot)
{
    return left[k][slot] ? NULL : levels[k].fn[slot];
}

static jpmpi_fn resolve(int depth, int slot)
{
    for (int k = depth < 0 ? 0 : depth; k < nlevels; k++) {
        if (routed(k, slot)) {
            return levels[k].java ? jpmpi_jdefs[k][slot] : levels[k].fn[slot];
        }
    }
    return bottom[slot];
}

/* Refills jpmpi_from from the levels' definitions (each byte stored once, with its final value:
 * a call on its way meanwhile reads the old route or the new one). */
static void compute_routes(void)
{
    for (int slot = 0; slot < JPMPI_NSLOTS; slot++) {
        unsigned char next = JPMPI_BOTTOM;
        for (int p = JPMPI_MAX_LEVELS; p >= 0; p--) {
            if (p < nlevels && routed(p, slot)) {
                next = (unsigned char)p;
            }
            __atomic_store_n(&jpmpi_from[slot][p], next, __ATOMIC_RELAXED);
        }
    }
}

/* Where a call entering at level `start` goes: the slot's entry (`enter`), or the library
 * directly when no level from there on defines it (NULL if the library lacks it too). */
static jpmpi_fn entry_route(const jpmpi_fn *enter, int slot, int start)
{
    return jpmpi_from[slot][start < 0 ? 0 : start] == JPMPI_BOTTOM ? bottom[slot] : enter[slot];
}

/* The definition of the one C level that alone defines slot, which the application's MPI_X then reaches
 * through the slot's lone entry (jpmpi_core.h, JPMPI_ENTER_LONE); NULL when no level, several or a Java
 * level define it, or the slot has no lone entry. */
static jpmpi_fn lone_definition(int slot)
{
    unsigned n = jpmpi_from[slot][0];
    if (n == JPMPI_BOTTOM || levels[n].java || jpmpi_from[slot][n + 1] != JPMPI_BOTTOM || !jpmpi_enter_lone[slot]) {
        return NULL;
    }
    return levels[n].fn[slot];
}

/* Where the application's MPI_X goes: the lone entry (with the level's definition put where it reads it,
 * before the route is handed out), the slot's entry or the library (NULL if it lacks X). */
static jpmpi_fn app_route(int slot)
{
    jpmpi_fn lone = lone_definition(slot);
    if (!lone) {
        return entry_route(jpmpi_enter_app, slot, 0);
    }
    __atomic_store_n(&jpmpi_lone[slot], lone, __ATOMIC_RELEASE);
    return jpmpi_enter_lone[slot];
}

/* Where level k's PMPI_X goes: X's guard when a level below k defines X, else the library; for a
 * Java level, X's java-below either way (jpmpi_core.h, the floating-point state). */
static jpmpi_fn forward_route(int k, int slot)
{
    if (levels[k].java && slot != JPMPI_SLOT_MPI_Pcontrol) {
        return bottom[slot] ? jpmpi_java_below[slot] : NULL;
    }
    return entry_route(jpmpi_guard, slot, k + 1);
}

static int pcontrol_noop(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}

static int deliver_pcontrol(int from, int level);

JPMPI_EXPORT int MPI_Pcontrol(const int level, ...)
{
    jpmpi_core_boot();
    return deliver_pcontrol(0, level);
}

JPMPI_EXPORT int PMPI_Pcontrol(const int level, ...)
{
    jpmpi_core_boot();
    return deliver_pcontrol(1, level);
}

/* The Fortran layer's Pcontrol enters at the `fort` position, like its other calls. */
static int pcontrol_from_fortran(const int level, ...)
{
    return deliver_pcontrol(entries.fort_pos, level);
}

/* Every level from `from` down that defines MPI_Pcontrol, in order, then the library. */
static int deliver_pcontrol(int from, int level)
{
    typedef int (*pcontrol_t)(const int, ...);
    for (int k = from; k < nlevels; k++) {
        pcontrol_t own = (pcontrol_t)routed(k, JPMPI_SLOT_MPI_Pcontrol);
        if (own) {
            /* a Java level's work may set errno (the JVM's own), which the program never sees */
            int saved = errno;
            own(level);
            if (levels[k].java) {
                errno = saved;
            }
        }
    }
    if (bottom[JPMPI_SLOT_MPI_Pcontrol]) {
        return ((pcontrol_t)bottom[JPMPI_SLOT_MPI_Pcontrol])(level);
    }
    return MPI_SUCCESS;
}

/* GOT targets for level k: PMPI_X → X's guard (or the library), MPI_X → its own definition (or
 * the library). */
static jpmpi_fn level_target(const char *name, void *ctx)
{
    int k = *(int *)ctx, pmpi = 0;
    int slot = slot_of(name, &pmpi);
    if (slot < 0) {
        return NULL;
    }
    if (slot == JPMPI_SLOT_MPI_Pcontrol) {
        return (jpmpi_fn)pcontrol_noop; /* the core already delivers Pcontrol to every level */
    }
    if (pmpi) {
        return forward_route(k, slot);
    }
    return levels[k].fn[slot] ? levels[k].fn[slot] : bottom[slot];
}

/* GOT targets for the Fortran layer: MPI_X and PMPI_X alike enter at the `fort` position. */
static jpmpi_fn fortran_target(const char *name, void *ctx)
{
    int pos = *(int *)ctx;
    int slot = slot_of(name, NULL);
    if (slot < 0) {
        return NULL;
    }
    if (slot == JPMPI_SLOT_MPI_Pcontrol) {
        return (jpmpi_fn)pcontrol_from_fortran;
    }
    return entry_route(jpmpi_enter_fort, slot, pos);
}

#define MAX_FORTRAN_OBJECTS 8

struct fortran_scan {
    char paths[MAX_FORTRAN_OBJECTS][1024];
    int count;
};

/* Collects the loaded objects that are the MPI library's Fortran layer (dlopen is not called
 * from inside dl_iterate_phdr). */
static int find_fortran(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct fortran_scan *scan = data;
    const char *base = strrchr(info->dlpi_name, '/');
    base = base ? base + 1 : info->dlpi_name;
    for (int i = 0; jpmpi_fortran_libraries[i] && scan->count < MAX_FORTRAN_OBJECTS; i++) {
        if (strncmp(base, jpmpi_fortran_libraries[i], strlen(jpmpi_fortran_libraries[i])) == 0) {
            snprintf(scan->paths[scan->count++], sizeof scan->paths[0], "%s", info->dlpi_name);
        }
    }
    return 0;
}

static void link_fortran(void)
{
    struct fortran_scan scan = {.count = 0};
    dl_iterate_phdr(find_fortran, &scan);
    jpmpi_fort_layer_scan();
    for (int i = 0; i < scan.count; i++) {
        void *h = dlopen(scan.paths[i], RTLD_NOLOAD | RTLD_LAZY);
        struct link_map *map = NULL;
        char err[512];
        if (h && dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map
            && jpmpi_patch_object(map, fortran_target, &entries.fort_pos, err, sizeof err) < 0) {
            fail(NULL, "cannot route the Fortran layer %s: %s", scan.paths[i], err);
        }
        if (h) {
            dlclose(h);
        }
    }
}

static void link_chain(void)
{
    compute_routes();
    for (int slot = 0; slot < JPMPI_NSLOTS; slot++) {
        if (slot == JPMPI_SLOT_MPI_Pcontrol) {
            continue;
        }
        jpmpi_fn top = app_route(slot), next = entry_route(jpmpi_enter_pmpi, slot, 1);
        /* one store each: the exports jump through these while other threads call (a level leaving) */
        if (top) {
            __atomic_store_n(&jpmpi_entry[slot], top, __ATOMIC_RELEASE);
        }
        if (next) {
            __atomic_store_n(&jpmpi_pentry[slot], next, __ATOMIC_RELEASE);
        }
    }
    for (int k = 0; k < nlevels; k++) {
        char err[512];
        int depth = k;
        if (levels[k].java) {
            continue; /* its downcalls read jpmpi_resolve's answers, refreshed by the Java runtime */
        }
        if (jpmpi_patch_object(levels[k].map, level_target, &depth, err, sizeof err) < 0) {
            fail(&entries.items[k], "cannot link it into the chain: %s", err);
        }
    }
    link_fortran();
}

/* ---- loading levels ---- */

static struct link_map *bottom_map;

/* The span [lo, hi) of an object's loaded segments, from the lowest to the end of the highest (the
 * loader maps an object in one piece, the gaps between its segments reserved too), for the object of
 * link map `map`; hi == 0 when not found. */
struct object_span {
    const struct link_map *map;
    uintptr_t lo, hi;
};

static int find_object_span(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct object_span *span = data;
    if (info->dlpi_addr != span->map->l_addr || !info->dlpi_name || !span->map->l_name
        || strcmp(info->dlpi_name, span->map->l_name) != 0) {
        return 0;
    }
    uintptr_t first = UINTPTR_MAX, end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            first = ph->p_vaddr < first ? ph->p_vaddr : first;
            end = ph->p_vaddr + ph->p_memsz > end ? ph->p_vaddr + ph->p_memsz : end;
        }
    }
    if (first < end) {
        span->lo = info->dlpi_addr + first;
        span->hi = info->dlpi_addr + end;
    }
    return 1;
}

static void load_c_level(const struct jpmpi_item *item, struct level *lv)
{
    char name[4096];
    const char *file = item->text;
    int bare = strchr(file, '/') == NULL && strstr(file, ".so") == NULL;
    char why_not[256];
    if (bare) {
        snprintf(name, sizeof name, "lib%s.so", file);
        file = name;
    } else if (strchr(file, '/') && jpmpi_object_check(file, why_not, sizeof why_not) != 0) {
        fail(item, "%s", why_not);
    }
    dlerror();
    lv->handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (lv->handle == NULL) {
        const char *why = dlerror();
        if (bare) {
            fail(item, "not a keyword (v, vv, fort, fortran, preload) and %s cannot be loaded: %s", file,
                 why ? why : "not found on the library path");
        }
        /* "libdep.so.1: cannot open shared object file: ...": a dependency the loader does not find */
        const char *open_failed = why ? strstr(why, ": cannot open shared object file") : NULL;
        if (open_failed && strncmp(why, file, (size_t)(open_failed - why)) != 0) {
            fail(item, "needs %.*s, which the dynamic loader does not find (LD_LIBRARY_PATH, the linker cache)",
                 (int)(open_failed - why), why);
        }
        fail(item, "cannot be loaded: %s", why ? why : "unknown dlopen error");
    }
    if (dlinfo(lv->handle, RTLD_DI_LINKMAP, &lv->map) != 0 || lv->map == NULL) {
        fail(item, "loaded, but its link map is unavailable: %s", dlerror());
    }
    if (lv->map == bottom_map) {
        fail(item, "is the MPI library itself, which is always the bottom level");
    }
    const char *other = jpmpi_object_other_mpi(lv->map, bottom_map);
    if (other) {
        const char *program = strrchr(bottom_map->l_name, '/');
        fail(item, "needs %s, another MPI library than the program's %s (build the tool with %s's mpicc)", other,
             program ? program + 1 : bottom_map->l_name, jpmpi_impl_name);
    }
    for (int k = 0; lv != &levels[k]; k++) {
        if (levels[k].map == lv->map) {
            fail(item, "is the same library as item %d; a library can be one level only",
                 entries.items[k].position);
        }
    }
    /* dlsym also searches the level's dependencies (libmpi!): keep only its own symbols, those in the
     * span it is mapped in, which is the object dladdr1 would name; dladdr1 itself reads every dynamic
     * symbol of the object holding the address, per slot (~2 ms a level at each rank's start,
     * benchmarks/README.md, "The eighteenth session"). Without the span, dladdr1 as before. */
    struct object_span span = {lv->map, 0, 0};
    dl_iterate_phdr(find_object_span, &span);
    for (int slot = 0; slot < JPMPI_NSLOTS; slot++) {
        void *sym = dlsym(lv->handle, jpmpi_slot_names[slot]);
        Dl_info info;
        struct link_map *owner = NULL;
        if (sym && (span.hi > span.lo ? (uintptr_t)sym - span.lo < span.hi - span.lo
                                      : dladdr1(sym, &info, (void **)&owner, RTLD_DL_LINKMAP) && owner == lv->map)) {
            lv->fn[slot] = (jpmpi_fn)sym;
            lv->defined++;
        }
    }
    if (lv->defined == 0) {
        fail(item, "defines no MPI function (a PMPI tool defines some MPI_* and calls PMPI_*)");
    }
}

/* ---- the bridge to the Java runtime ---- */

static void say_line(const char *line)
{
    const char *rank = rank_text();
    if (rank) {
        dprintf(STDERR_FILENO, "jpmpi (rank %s): %s\n", rank, line);
    } else {
        dprintf(STDERR_FILENO, "jpmpi: %s\n", line);
    }
}

static int64_t bridge_install(int level, int slot, jpmpi_fn fn)
{
    if (level < 0 || level >= nlevels || !levels[level].java || slot < 0 || slot >= JPMPI_NSLOTS) {
        return -1;
    }
    pthread_mutex_lock(&link_lock);
    levels[level].defined += (fn != NULL) - (levels[level].fn[slot] != NULL);
    /* reached through the slot's java-enter (jpmpi_core.h), but for MPI_Pcontrol, which the core
     * delivers itself and the library's runs under the caller's state anyway */
    jpmpi_jdefs[level][slot] = fn;
    levels[level].fn[slot] = fn && slot != JPMPI_SLOT_MPI_Pcontrol ? jpmpi_java_enter[slot] : fn;
    pthread_mutex_unlock(&link_lock);
    return 0;
}

static int64_t bridge_call(int64_t op, int64_t a, int64_t b, int64_t c)
{
    switch (op) {
    case JPMPI_OP_INSTALL:
        return bridge_install((int)a, (int)b, (jpmpi_fn)(intptr_t)c);
    case JPMPI_OP_RELINK:
        pthread_mutex_lock(&link_lock);
        link_chain();
        pthread_mutex_unlock(&link_lock);
        return 0;
    case JPMPI_OP_MESSAGE:
        say_line((const char *)(intptr_t)a);
        return 0;
    case JPMPI_OP_VERBOSITY:
        return entries.verbose;
    case JPMPI_OP_ROUTE_ALL:
        for (int64_t slot = 0; slot < c && slot < JPMPI_NSLOTS; slot++) {
            jpmpi_fn to = a < 0 || a >= nlevels || slot == JPMPI_SLOT_MPI_Pcontrol ? bottom[slot]
                                                                                 : forward_route((int)a, (int)slot);
            ((int64_t *)(intptr_t)b)[slot] = (int64_t)(intptr_t)to;
        }
        return 0;
    default:
        return -1;
    }
}

static struct jpmpi_bridge bridge;
static struct jpmpi_java_times java_times;

static void start_java(void)
{
    struct jpmpi_java_level jars[JPMPI_MAX_LEVELS];
    int njars = 0;
    for (int k = 0; k < nlevels; k++) {
        if (levels[k].java) {
            jars[njars].level = k;
            jars[njars].jar = levels[k].entry;
            njars++;
        }
    }
    /* The ABI tables sit beside this library, in a library of their own that links libmpi. */
    Dl_info self;
    char path[4096];
    if (!dladdr((void *)start_java, &self) || self.dli_fname == NULL) {
        fail(NULL, "cannot find where libmpiprofilesupport.so was loaded from");
    }
    snprintf(path, sizeof path, "%s", self.dli_fname);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, sizeof path - (size_t)(slash ? slash + 1 - path : 0), "%s", JPMPI_ABI_LIBRARY);
    void *abi = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (abi == NULL) {
        fail(NULL, "cannot load %s, which Java levels need: %s", path, dlerror());
    }
    void (*load)(void) = (void (*)(void))dlsym(abi, "jpmpi_abi_load");
    const int *ntypes = dlsym(abi, "jpmpi_abi_ntypes"), *nconstants = dlsym(abi, "jpmpi_abi_nconstants");
    const void *types = dlsym(abi, "jpmpi_abi_types"), *constants = dlsym(abi, "jpmpi_abi_constants");
    const void *status = dlsym(abi, "jpmpi_abi_status");
    if (!load || !ntypes || !nconstants || !types || !constants || !status) {
        fail(NULL, "%s lacks the jpmpi_abi_* tables", path);
    }
    load();
    bridge = (struct jpmpi_bridge){
        .version = JPMPI_BRIDGE_VERSION, .nslots = JPMPI_NSLOTS, .slot_names = jpmpi_slot_names,
        .impl_id = jpmpi_impl_id, .impl_version = jpmpi_impl_version, .call = bridge_call,
        .types = types, .ntypes = *ntypes, .constants = constants, .nconstants = *nconstants, .status = status};
    char err[1024];
    int culprit = -1;
    if (jpmpi_java_start(&bridge, jars, njars, &java_times, &culprit, err, sizeof err) != 0) {
        fail(culprit >= 0 ? &entries.items[culprit] : NULL, "%s", err);
    }
}

void jpmpi_core_java_failed(const char *reason)
{
    for (int k = 0; k < nlevels; k++) {
        if (levels[k].java) {
            fail(&entries.items[k], "%s", reason);
        }
    }
    fail(NULL, "%s", reason);
}

static void check_jar(const struct jpmpi_item *item)
{
    struct stat st;
    if (stat(item->text, &st) != 0 || access(item->text, R_OK) != 0) {
        fail(item, "%s", errno == ENOENT ? "no such file" : strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) {
        fail(item, "is a directory");
    }
    if (!S_ISREG(st.st_mode)) {
        fail(item, "is not a regular file");
    }
}

static void print_levels(void)
{
    const char *rank = rank_text();
    if (entries.verbose == 0 || (rank && strcmp(rank, "0") != 0)) {
        return;
    }
    dprintf(STDERR_FILENO, "jpmpi: %d level%s over %s %s (%d functions), from %s\n", nlevels, nlevels == 1 ? "" : "s",
            jpmpi_impl_name, jpmpi_impl_version, JPMPI_NSLOTS, entry_source);
    if (site.file[0]) {
        dprintf(STDERR_FILENO, "jpmpi: site tools from %s: %s\n", site.file,
                site.opted_out ? "none, the job opted out (" JPMPI_SETTING_SITE_TOOLS "=off)"
                : site.refused ? "kept, the site forbids opting out (" JPMPI_SETTING_SITE_TOOLS "=off ignored)"
                : site.added ? "below the job's" : "none beyond the job's");
    }
    for (int k = 0; k <= nlevels; k++) {
        if (k == entries.fort_pos) {
            dprintf(STDERR_FILENO, "jpmpi:   -  fortran  (Fortran calls enter here)\n");
        }
        if (k == nlevels) {
            break;
        }
        dprintf(STDERR_FILENO, "jpmpi:   %d  %s  %s%sdefines %d function%s\n", k, levels[k].entry,
                entries.items[k].site ? "(site) " : "", levels[k].java ? "(Java) " : "", levels[k].defined,
                levels[k].defined == 1 ? "" : "s");
        if (entries.verbose > 1) {
            for (int slot = 0; slot < JPMPI_NSLOTS; slot++) {
                if (levels[k].fn[slot]) {
                    dprintf(STDERR_FILENO, "jpmpi:        %s\n", jpmpi_slot_names[slot]);
                }
            }
        }
    }
    dprintf(STDERR_FILENO, "jpmpi:   %d  %s %s (bottom)\n", nlevels, jpmpi_impl_name, jpmpi_impl_version);
    if (has_java && entries.verbose > 1) {
        int map = java_times.archive && java_times.map && java_times.map[0];
        dprintf(STDERR_FILENO, "jpmpi: JVM start %.1f ms (libjvm %.1f, JNI_CreateJavaVM %.1f%s%s%s%s, Java levels %.1f)\n",
                java_times.find_ms + java_times.create_ms + java_times.boot_ms, java_times.find_ms,
                java_times.create_ms, java_times.archive ? " with the AOT/CDS archive" : "",
                map ? " (map.options: " : "", map ? java_times.map : "", map ? ")" : "", java_times.boot_ms);
    }
}

/*
 * Where the MPI library's PMPI_X are: the next definitions after this library, where the program
 * links libmpi or loaded it into the global scope; else the loaded object (other than this one)
 * that defines PMPI_Init, for a library loaded at run time into a local scope (a Python extension
 * module, a plugin): the process's link map, walked from the program's entry. NULL: no MPI
 * library in this process (yet).
 */
static void *library_handle(void)
{
    if (dlsym(RTLD_NEXT, "PMPI_Init")) {
        return RTLD_NEXT;
    }
    void *program = dlopen(NULL, RTLD_LAZY);
    struct link_map *map = NULL;
    if (program == NULL || dlinfo(program, RTLD_DI_LINKMAP, &map) != 0) {
        return NULL;
    }
    Dl_info self;
    dladdr((void *)library_handle, &self);
    for (; map; map = map->l_next) {
        void *h = map->l_name[0] ? dlopen(map->l_name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
        void *init = h ? dlsym(h, "PMPI_Init") : NULL;
        Dl_info where;
        if (h) {
            dlclose(h);
        }
        if (init && dladdr(init, &where) && where.dli_fbase != self.dli_fbase) {
            return dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD); /* the library itself */
        }
    }
    return NULL;
}

/* What does the entry list say, and where is MPI: at load time, or, where the program loads its
 * MPI library at run time (python with mpi4py), again at the first MPI call. */
static void early(void)
{
    if (early_state != 0) {
        return;
    }
    static int tables;
    if (!tables) {
        tables = 1;
        names_init();
        memset(jpmpi_from, JPMPI_BOTTOM, sizeof jpmpi_from);
        for (int k = 0; k < JPMPI_MAX_LEVELS; k++) {
            levels[k].fn = jpmpi_defs[k];
        }
    }
    void *library = library_handle();
    char sym[128];
    for (int slot = 0; slot < JPMPI_NSLOTS; slot++) {
        snprintf(sym, sizeof sym, "P%s", jpmpi_slot_names[slot]);
        bottom[slot] = library ? (jpmpi_fn)dlsym(library, sym) : NULL;
        /* a function the library lacks: a stub that says so and aborts */
        jpmpi_bottom[slot] = bottom[slot] ? bottom[slot] : jpmpi_missing[slot];
    }
    if (bottom[JPMPI_SLOT_MPI_Init] == NULL) {
        return; /* no MPI library in this process (a shell, a launcher), or not yet: stay out of the way */
    }
    early_state = -1;
    Dl_info info;
    dladdr1((void *)bottom[JPMPI_SLOT_MPI_Init], &info, (void **)&bottom_map, RTLD_DL_LINKMAP);

    const char *text = getenv(JPMPI_SETTING_TOOLS_ENTRY);
    if (text == NULL) {
        text = getenv(JPMPI_SETTING_TOOLS_ENTRY_ALIAS);
        entry_source = JPMPI_SETTING_TOOLS_ENTRY_ALIAS;
    }
    char err[512];
    if (jpmpi_entry_parse(text, &entries, err, sizeof err) != 0) {
        fail_line("%s %s", entry_source, err); /* err starts with "item N ..." */
    }
    /* srun --export=ALL,JPMPI_TOOLS_ENTRY=v,libx.so gives the ranks "v": srun splits at every comma */
    const char *rank = rank_text();
    if (text && entries.count == 0 && (entries.verbose || entries.preload) && getenv("SLURM_JOB_ID")
        && (rank == NULL || strcmp(rank, "0") == 0)) {
        dprintf(STDERR_FILENO, "jpmpi: %s='%s' names no tool, only keywords: cut at a comma by srun --export? "
                "(export the list before srun instead, or use jpmpi run; native-stubs/README.md)\n", entry_source, text);
    }
    jpmpi_site_add(&entries, &site);
    jpmpi_fort_pos = entries.fort_pos;
    for (int k = 0; k < entries.count; k++) {
        if (entries.items[k].kind == JPMPI_ITEM_JAR) {
            check_jar(&entries.items[k]);
            has_java = 1;
        }
    }
    early_state = 1;
}

static void boot(void)
{
    if (early_state <= 0) {
        return;
    }
    for (int k = 0; k < entries.count; k++) {
        const struct jpmpi_item *item = &entries.items[k];
        levels[k].entry = item->text;
        if (item->kind == JPMPI_ITEM_JAR) {
            levels[k].java = 1;
        } else {
            load_c_level(item, &levels[k]);
        }
        nlevels = k + 1;
    }
    if (has_java) {
        start_java(); /* the Java runtime installs its stubs, then relinks */
    }
    link_chain();
    print_levels();
}

void jpmpi_core_boot(void)
{
    static pthread_mutex_t early_lock = PTHREAD_MUTEX_INITIALIZER;
    if (__atomic_load_n(&early_state, __ATOMIC_ACQUIRE) == 0) {
        pthread_mutex_lock(&early_lock);
        early(); /* the MPI library may have been loaded since this library was */
        pthread_mutex_unlock(&early_lock);
    }
    pthread_once(&boot_once, boot);
}

/*
 * Objects that are the MPI library's own code besides the library itself: Open MPI's components
 * (mca_*.so, dlopened in MPI_Init) and its support libraries. Their calls of MPI functions during
 * a forwarded call are the library's business, not the application's.
 */
static const char *const internal_prefixes[] = {"mca_", "libopen-pal", "libopen-rte", "libmca_", NULL};

/* A small per-thread cache of answers, so a library that calls itself often asks dladdr once. */
#define INTERNAL_CACHE 8
static __thread struct {
    void *ra;
    int internal;
} internal_cache[INTERNAL_CACHE] __attribute__((tls_model("initial-exec")));

int jpmpi_core_internal(void *ra)
{
    unsigned i = (unsigned)((uintptr_t)ra >> 4) % INTERNAL_CACHE;
    if (internal_cache[i].ra == ra) {
        return internal_cache[i].internal;
    }
    Dl_info info;
    struct link_map *map = NULL;
    int internal = 0;
    if (ra != NULL && dladdr1(ra, &info, (void **)&map, RTLD_DL_LINKMAP) && map != NULL) {
        internal = map == bottom_map;
        const char *base = map->l_name ? strrchr(map->l_name, '/') : NULL;
        base = base ? base + 1 : map->l_name;
        for (int k = 0; !internal && base && internal_prefixes[k]; k++) {
            internal = strncmp(base, internal_prefixes[k], strlen(internal_prefixes[k])) == 0;
        }
    }
    internal_cache[i].ra = ra;
    internal_cache[i].internal = internal;
    return internal;
}

/* Is `ra` inside the MPI library's Fortran layer? */
static int from_fortran(void *ra)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (ra == NULL || !dladdr1(ra, &info, (void **)&map, RTLD_DL_LINKMAP) || map == NULL || map->l_name == NULL) {
        return 0;
    }
    const char *base = strrchr(map->l_name, '/');
    base = base ? base + 1 : map->l_name;
    for (int i = 0; jpmpi_fortran_libraries[i]; i++) {
        if (strncmp(base, jpmpi_fortran_libraries[i], strlen(jpmpi_fortran_libraries[i])) == 0) {
            return 1;
        }
    }
    return 0;
}

jpmpi_fn jpmpi_core_first(int slot, int pmpi, void *ra)
{
    jpmpi_core_boot();
    jpmpi_fn target;
    if (from_fortran(ra)) {
        target = entry_route(jpmpi_enter_fort, slot, entries.fort_pos);
    } else {
        target = pmpi ? entry_route(jpmpi_enter_pmpi, slot, 1) : app_route(slot);
    }
    if (target == NULL) {
        jpmpi_core_missing(slot);
    }
    return target;
}

/* Without Java levels everything is set up before main; with them, at the first MPI call. */
__attribute__((constructor)) static void jpmpi_core_constructor(void)
{
    early();
    if (early_state > 0 && !has_java) {
        jpmpi_core_boot();
    }
}

/* ---- public interface (jpmpi.h) ---- */

JPMPI_EXPORT int jpmpi_active(void)
{
    return 1;
}

JPMPI_EXPORT const char *jpmpi_implementation(void)
{
    static char text[64];
    if (text[0] == '\0') {
        snprintf(text, sizeof text, "%s %s", jpmpi_impl_id, jpmpi_impl_version);
    }
    return text;
}

/* Where this thread's caller word is (jpmpi.h): the entries write the return address of every call
 * of the application that goes to a level there, so a level finds the call site with one load. */
JPMPI_EXPORT void *const *jpmpi_caller_word(void)
{
    return (void *const *)&jpmpi_caller;
}

JPMPI_EXPORT int jpmpi_level_count(void)
{
    jpmpi_core_boot();
    return nlevels;
}

JPMPI_EXPORT const char *jpmpi_level_entry(int level)
{
    jpmpi_core_boot();
    return level >= 0 && level < nlevels ? levels[level].entry : NULL;
}

JPMPI_EXPORT int jpmpi_level_defines(int level, const char *mpi_name)
{
    jpmpi_core_boot();
    int slot = slot_of(mpi_name, NULL);
    return level >= 0 && level < nlevels && slot >= 0 && routed(level, slot) != NULL;
}

JPMPI_EXPORT jpmpi_function_t jpmpi_resolve(int depth, const char *mpi_name)
{
    jpmpi_core_boot();
    int slot = slot_of(mpi_name, NULL);
    return slot < 0 ? NULL : resolve(depth, slot);
}

JPMPI_EXPORT int jpmpi_function_count(void)
{
    return JPMPI_NSLOTS;
}

JPMPI_EXPORT const char *jpmpi_function_name(int i)
{
    return i >= 0 && i < JPMPI_NSLOTS ? jpmpi_slot_names[i] : NULL;
}

JPMPI_EXPORT int jpmpi_level_of(const void *address)
{
    jpmpi_core_boot();
    Dl_info info;
    struct link_map *map = NULL;
    if (address == NULL || !dladdr1(address, &info, (void **)&map, RTLD_DL_LINKMAP) || map == NULL) {
        return -1;
    }
    for (int k = 0; k < nlevels; k++) {
        if (!levels[k].java && levels[k].map == map) {
            return k;
        }
    }
    return -1;
}

/*
 * A level leaves the chain for some of its functions (jpmpi.h): they are marked, and the chain is
 * linked again as at start-up, minus those: jpmpi_from (which the entries and guards read), the
 * exports' tables, every C level's GOT, the Fortran layer's. Each route is one atomic store, so
 * the other threads' calls go the old way or the new way; the level's definitions stay in
 * jpmpi_defs for a call that read the old route.
 */
JPMPI_EXPORT int jpmpi_level_leave(int level, int how, const char *const *names, int n)
{
    jpmpi_core_boot();
    char line[256];
    if (level < 0 || level >= nlevels || levels[level].java) {
        snprintf(line, sizeof line, "jpmpi_level_leave: %d is not a C level (levels 0 to %d); nothing left", level,
                 nlevels - 1);
        say_line(line);
        return -1;
    }
    if ((how != JPMPI_LEAVE_THESE && how != JPMPI_LEAVE_ALL_BUT) || n < 0 || (n > 0 && names == NULL)) {
        snprintf(line, sizeof line, "jpmpi_level_leave: level %d asked with how=%d and %d names; nothing left", level,
                 how, n);
        say_line(line);
        return -1;
    }
    unsigned char named[JPMPI_NSLOTS];
    memset(named, 0, sizeof named);
    for (int i = 0; i < n; i++) {
        int slot = names[i] ? slot_of(names[i], NULL) : -1;
        if (slot < 0) {
            snprintf(line, sizeof line, "jpmpi_level_leave: level %d named '%.64s', not an MPI function of %s %s; "
                     "nothing left", level, names[i] ? names[i] : "(null)", jpmpi_impl_name, jpmpi_impl_version);
            say_line(line);
            return -1;
        }
        named[slot] = 1;
    }
    int count = 0, kept = 0;
    pthread_mutex_lock(&link_lock);
    for (int slot = 0; slot < JPMPI_NSLOTS; slot++) {
        if (!routed(level, slot)) {
            continue;
        }
        if (named[slot] == (how == JPMPI_LEAVE_THESE)) {
            left[level][slot] = 1;
            count++;
        } else {
            kept++;
        }
    }
    if (count) {
        link_chain();
    }
    pthread_mutex_unlock(&link_lock);
    const char *rank = rank_text();
    if (count && entries.verbose && (rank == NULL || strcmp(rank, "0") == 0)) {
        dprintf(STDERR_FILENO, "jpmpi: level %d %s left the chain for %d function%s, keeps %d\n", level,
                levels[level].entry, count, count == 1 ? "" : "s", kept);
    }
    return count;
}
