/* jpmpi_core.h - what the generated dispatcher and the hand-written core share. Private. */
#ifndef JPMPI_CORE_H
#define JPMPI_CORE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include "jpmpi.h"
#include "jpmpi_slots.h"

#define JPMPI_EXPORT __attribute__((visibility("default")))
#define JPMPI_HIDDEN __attribute__((visibility("hidden")))

typedef jpmpi_function_t jpmpi_fn;

/* Filled by the generated file (jpmpi_dispatch.c). */
extern jpmpi_fn jpmpi_entry[JPMPI_NSLOTS];   /* what the application's MPI_X reaches */
extern jpmpi_fn jpmpi_pentry[JPMPI_NSLOTS];  /* what the application's PMPI_X reaches */
extern const char *const jpmpi_slot_names[JPMPI_NSLOTS];
extern const char jpmpi_impl_id[];
extern const char jpmpi_impl_name[];
extern const char jpmpi_impl_version[];
extern const char *const jpmpi_fortran_libraries[];

/*
 * ---- routing: who sees a call (the isolation rule, native-stubs/README.md) ----
 * A level's PMPI_X from inside its own MPI_X goes on to the next level defining X; every other
 * MPI call a level makes goes to the library. The state is one word per thread, jpmpi_cur: the
 * slot (+ 1) of the call the running wrapper intercepted, and that wrapper's level; 0 outside
 * every wrapper. An entry (the application's call, or the Fortran layer's) sets it for the call's
 * way down and puts it back after; a level's PMPI_X reaches the slot's guard, which forwards
 * only when the word names that slot (MPI_Init and MPI_Init_thread count as one), else goes
 * straight to the library.
 */
#define JPMPI_BOTTOM 0xffu /* in jpmpi_from: no level, the library */
#define JPMPI_CUR(slot, level) ((((unsigned)(slot) + 1u) << 8) | (unsigned)(level))
extern JPMPI_HIDDEN __thread unsigned jpmpi_cur __attribute__((tls_model("initial-exec")));
/* The return address of the call that last entered the chain on this thread (the application's
 * call site, or the Fortran layer's): set by every entry that goes to a level (jpmpi_caller_word). */
extern JPMPI_HIDDEN __thread void *jpmpi_caller __attribute__((tls_model("initial-exec")));
/* jpmpi_from[slot][p]: the first level >= p defining slot (and not left, jpmpi_level_leave), or JPMPI_BOTTOM. */
extern JPMPI_HIDDEN unsigned char jpmpi_from[JPMPI_NSLOTS][JPMPI_MAX_LEVELS + 1];
/* jpmpi_defs[k][slot]: level k's own definition, or NULL. */
extern JPMPI_HIDDEN jpmpi_fn jpmpi_defs[JPMPI_MAX_LEVELS][JPMPI_NSLOTS];
/* The library's PMPI_X; where this MPI lacks it, a stub that says so and aborts (never NULL). */
extern JPMPI_HIDDEN jpmpi_fn jpmpi_bottom[JPMPI_NSLOTS];
/* Where the Fortran layer's calls enter. */
extern JPMPI_HIDDEN int jpmpi_fort_pos;
/* Generated, per slot (NULL for MPI_Pcontrol): the entries of the application's MPI_X (from level
 * 0), of its PMPI_X (from level 1) and of the Fortran layer (from jpmpi_fort_pos), and the guard
 * every level's PMPI_X reaches. */
extern JPMPI_HIDDEN const jpmpi_fn jpmpi_enter_app[JPMPI_NSLOTS];
extern JPMPI_HIDDEN const jpmpi_fn jpmpi_enter_pmpi[JPMPI_NSLOTS];
extern JPMPI_HIDDEN const jpmpi_fn jpmpi_enter_fort[JPMPI_NSLOTS];
extern JPMPI_HIDDEN const jpmpi_fn jpmpi_guard[JPMPI_NSLOTS];
/* Generated, per slot: reports the function missing from the library (jpmpi_core_missing). */
extern JPMPI_HIDDEN const jpmpi_fn jpmpi_missing[JPMPI_NSLOTS];

/* Is the code at `ra` (a caller's return address) the MPI library's own (an MPI function it
 * implements with other MPI calls, like MPICH's MPI-IO)? Asked only for a call that arrives while
 * another is on its way down (jpmpi_cur set). */
JPMPI_HIDDEN int jpmpi_core_internal(void *ra);

/* The call site of a call of the Fortran layer: the program's return address above the layer's
 * frames, from the entry's return address and CFA (fortsite.c); the layer's address when unknown. */
JPMPI_HIDDEN void *jpmpi_fort_site(void *ra, void *cfa);
/* Notes where the Fortran layer's code is (its objects and the Fortran modules' libraries above it),
 * once, when the layer is linked. */
JPMPI_HIDDEN void jpmpi_fort_layer_scan(void);

/* The body of an entry: the call starts at the first level >= start defining slot. A call the
 * MPI library makes itself goes to the library: no level sees it. `ask` says when to look at the
 * caller, whose return address is `ra`: for the application's MPI_X only while another call is on
 * its way down (the library runs only then); for its PMPI_X always (how the library calls itself);
 * never for the Fortran layer. `site` is the call site the caller word gets: the return address
 * (the exports jump here, so it is still the caller's), or for the Fortran layer the program's
 * (jpmpi_fort_site). */
#define JPMPI_ENTER(ret, type, slot, start, ask, ra, site, args)                     \
    do {                                                                              \
        unsigned jp_n_ = jpmpi_from[slot][start];                                     \
        unsigned jp_saved_ = jpmpi_cur;                                               \
        if (jp_n_ == JPMPI_BOTTOM || ((ask) && jpmpi_core_internal(ra))) {            \
            return ((type)jpmpi_bottom[slot])args;                                    \
        }                                                                             \
        jpmpi_cur = JPMPI_CUR(slot, jp_n_);                                           \
        jpmpi_caller = (site);                                                        \
        ret jp_r_ = ((type)jpmpi_defs[jp_n_][slot])args;                              \
        jpmpi_cur = jp_saved_;                                                        \
        return jp_r_;                                                                 \
    } while (0)

/* The body of the application's MPI_X, the entry every intercepted call of a program takes: as
 * JPMPI_ENTER from level 0, in two parts. While no other call is on its way down (jpmpi_cur 0: the
 * library is not running on this thread, so it cannot be the caller), the hot part sets the word,
 * calls the level and puts 0 back: it keeps nothing across the call but the level's return value,
 * so it saves no register (benchmarks/dispatch/). Else the cold part `slow` (JPMPI_ENTER, generated
 * per slot) takes the call with the return address handed to it in `rargs`, ahead of args. */
/* Every application entry starts a cache line, so that its hot part spans as few lines as it can,
 * wherever the rest of the library moves it (it measured +0.3 ns per call when a change of the
 * library put MPI_Comm_rank's 48 bytes into a line: three lines instead of two). */
#define JPMPI_HOT_ALIGN __attribute__((aligned(64)))
#define JPMPI_ENTER_APP(ret, type, slot, slow, args, rargs)                           \
    do {                                                                              \
        unsigned jp_n_ = jpmpi_from[slot][0];                                         \
        if (jp_n_ == JPMPI_BOTTOM) {                                                  \
            return ((type)jpmpi_bottom[slot])args;                                    \
        }                                                                             \
        if (__builtin_expect(jpmpi_cur != 0, 0)) {                                    \
            return slow rargs;                                                        \
        }                                                                             \
        jpmpi_cur = JPMPI_CUR(slot, jp_n_);                                           \
        jpmpi_caller = __builtin_return_address(0);                                   \
        ret jp_r_ = ((type)jpmpi_defs[jp_n_][slot])args;                              \
        jpmpi_cur = 0;                                                                \
        return jp_r_;                                                                 \
    } while (0)

/* The application's MPI_X where one C level alone defines X (core.c, lone_definition): that level's PMPI_X
 * reaches the library directly, no guard and no level below it reads the word for X, so while no other
 * call is on its way down the entry only writes the caller word and jumps to the level (a tail call: no
 * frame, no register saved, nothing to put back: jpmpi_cur stays 0). A call arriving while another is
 * on its way down goes to `full`, the slot's JPMPI_ENTER_APP entry, which asks whether the library makes
 * it. So what the word marks as on its way down is a call through several levels or a Java one; a
 * library calling its own MPI_Y (not PMPI_Y) inside a lone level's MPI_X would pass as the program's,
 * as it does inside a call no level defines (Open MPI and MPICH make their own calls through PMPI_Y or
 * internal names: LibraryInternalCallsIT). jpmpi_lone[slot] holds the level's definition; once set it is
 * never cleared (a call that read the route before a level left still reaches the level). MPI_Init and
 * MPI_Init_thread, which a guard takes for each other, have none (jpmpi_enter_lone NULL). */
extern JPMPI_HIDDEN jpmpi_fn jpmpi_lone[JPMPI_NSLOTS];
extern JPMPI_HIDDEN const jpmpi_fn jpmpi_enter_lone[JPMPI_NSLOTS];
#define JPMPI_ENTER_LONE(type, slot, full, args)                                      \
    do {                                                                              \
        if (__builtin_expect(jpmpi_cur != 0, 0)) {                                    \
            return full args;                                                         \
        }                                                                             \
        jpmpi_caller = __builtin_return_address(0);                                   \
        return ((type)jpmpi_lone[slot])args;                                          \
    } while (0)

/* A function with arguments on the stack (more than six on x86-64) cannot take JPMPI_ENTER_APP's
 * hot part without cost: to forward its stack arguments in C, the compiler copies them all on every
 * path, the one to the library included (it loads them into six callee-saved registers it must save,
 * and stores them back for a tail call). There, the hot part is JPMPI_ENTER_APP_ASM: it leaves the
 * stack as the program made it and only jumps, to the library, to `call` (a C function of the same
 * parameters that calls the level, JPMPI_ENTER_APP_CALL, the one path that copies them) or, while
 * another call is on its way down, to `slow` (JPMPI_ENTER with the return address it finds in
 * jpmpi_entry_ra). Elsewhere (or built with -DJPMPI_ENTRY_C) JPMPI_ENTER_APP serves them too. */
#if defined(__x86_64__) && !defined(JPMPI_ENTRY_C)
#define JPMPI_ENTER_APP_STACK 1
#define JPMPI_STR_(x) #x
#define JPMPI_STR(x) JPMPI_STR_(x)
/* The return address of a call that takes `slow`, for it to read first thing. */
extern JPMPI_HIDDEN __thread void *jpmpi_entry_ra __attribute__((tls_model("initial-exec")));
/* jpmpi_from's row length and JPMPI_BOTTOM as the assembler reads them. */
#define JPMPI_FROM_ROW_ JPMPI_STR(JPMPI_MAX_LEVELS) "+1"
/* An entry in assembly: a hidden function that starts a cache line (JPMPI_HOT_ALIGN), and its end. */
#define JPMPI_ASM_BEGIN(name) \
    ".text\n.p2align 6\n.globl " #name "\n.hidden " #name "\n.type " #name ", @function\n" #name ":\n.cfi_startproc\n"
#define JPMPI_ASM_END(name) ".cfi_endproc\n.size " #name ", .-" #name "\n"
#define JPMPI_ENTER_APP_ASM(name, slot, call, slow)                                    \
    __asm__(JPMPI_ASM_BEGIN(name)                                                     \
            "\tmovzbl jpmpi_from+(" #slot ")*(" JPMPI_FROM_ROW_ ")(%rip), %eax\n"      \
            "\tcmpl $255, %eax\n"                                                     \
            "\tje 1f\n"                                                               \
            "\tmovq jpmpi_cur@gottpoff(%rip), %r10\n"                                 \
            "\tcmpl $0, %fs:(%r10)\n"                                                 \
            "\tjne 2f\n"                                                              \
            "\torl $((" #slot ")+1)<<8, %eax\n"                                        \
            "\tmovl %eax, %fs:(%r10)\n"                                               \
            "\tmovq jpmpi_caller@gottpoff(%rip), %r10\n"                              \
            "\tmovq (%rsp), %r11\n"                                                   \
            "\tmovq %r11, %fs:(%r10)\n"                                               \
            "\tjmp " #call "\n"                                                       \
            "1:\tjmp *jpmpi_bottom+(" #slot ")*8(%rip)\n"                              \
            "2:\tmovq jpmpi_entry_ra@gottpoff(%rip), %r10\n"                           \
            "\tmovq (%rsp), %r11\n"                                                   \
            "\tmovq %r11, %fs:(%r10)\n"                                               \
            "\tjmp " #slow "\n"                                                       \
            JPMPI_ASM_END(name))
/* JPMPI_ENTER_LONE for a function with arguments on the stack: in C the compiler copies them even for
 * the jump (it loads them all into registers it saves, and stores them back), so here it only jumps. */
#define JPMPI_ENTER_LONE_ASM(name, slot, full)                                         \
    __asm__(JPMPI_ASM_BEGIN(name)                                                     \
            "\tmovq jpmpi_cur@gottpoff(%rip), %r10\n"                                 \
            "\tcmpl $0, %fs:(%r10)\n"                                                 \
            "\tjne " #full "\n"                                                       \
            "\tmovq jpmpi_caller@gottpoff(%rip), %r10\n"                              \
            "\tmovq (%rsp), %r11\n"                                                   \
            "\tmovq %r11, %fs:(%r10)\n"                                               \
            "\tjmp *jpmpi_lone+(" #slot ")*8(%rip)\n"                                 \
            JPMPI_ASM_END(name))
_Static_assert(JPMPI_BOTTOM == 255u, "JPMPI_ENTER_APP_ASM compares with 255");
_Static_assert(JPMPI_CUR(1, 2) == ((2u << 8) | 2u), "JPMPI_ENTER_APP_ASM forms the word as JPMPI_CUR");
_Static_assert(sizeof(jpmpi_fn) == 8 && sizeof(unsigned) == 4, "JPMPI_ENTER_APP_ASM's widths");
#endif
/* The body of JPMPI_ENTER_APP_ASM's `call`: the level the hot part has put in the word, then 0 back. */
#define JPMPI_ENTER_APP_CALL(ret, type, slot, args)                                   \
    do {                                                                              \
        ret jp_r_ = ((type)jpmpi_defs[jpmpi_cur & 0xffu][slot])args;                  \
        jpmpi_cur = 0;                                                                \
        return jp_r_;                                                                 \
    } while (0)

/* The level a guard forwards to from the word `c`: the next one defining slot when c names slot (or
 * alt, its equivalent), else JPMPI_BOTTOM (the library). */
#define JPMPI_NEXT(slot, alt, c)                                                      \
    (((c) >> 8) == (unsigned)(slot) + 1u || ((c) >> 8) == (unsigned)(alt) + 1u         \
         ? jpmpi_from[slot][((c) & 0xffu) + 1u]                                       \
         : JPMPI_BOTTOM)

/* The body of a guard: forward within the call of slot (or of alt, its equivalent), else the library. */
#define JPMPI_GUARD(ret, type, slot, alt, args)                                       \
    do {                                                                              \
        unsigned jp_c_ = jpmpi_cur;                                                   \
        unsigned jp_n_ = JPMPI_NEXT(slot, alt, jp_c_);                                \
        if (jp_n_ != JPMPI_BOTTOM) {                                                  \
            jpmpi_cur = JPMPI_CUR(slot, jp_n_);                                       \
            ret jp_r_ = ((type)jpmpi_defs[jp_n_][slot])args;                          \
            jpmpi_cur = jp_c_;                                                        \
            return jp_r_;                                                             \
        }                                                                             \
        return ((type)jpmpi_bottom[slot])args;                                        \
    } while (0)

/* Runs the core once (entry list, levels, tables). */
void jpmpi_core_boot(void);
/* The boot stubs: boots the core, then returns where slot's call goes, from the caller at `ra`
 * (the application, or the MPI library's Fortran layer) via MPI_X (pmpi = 0) or PMPI_X. */
jpmpi_fn jpmpi_core_first(int slot, int pmpi, void *ra);
/* A slot whose MPI library lacks the function was called: report and abort. */
void jpmpi_core_missing(int slot) __attribute__((noreturn));

/*
 * ---- the floating-point state across a Java level (layering/README.md, "Floating-point state") ----
 * HotSpot's upcall stub runs Java under the JVM's MXCSR and, on return, puts back the caller's as
 * it was at entry: the MPI library, reached from Java, would run under the JVM's control bits, and
 * the status flags it raises would be lost. So a Java level's definition is reached through its
 * slot's java-enter (jpmpi_jdefs holds the upcall stub), which keeps the caller's MXCSR in a frame
 * of the thread; the level's forwarded call goes through the slot's java-below, which runs the
 * call under that MXCSR and notes what the library left there; the java-enter hands that back to
 * the caller. The Java code itself never changes what the application sees. errno the same way:
 * what the library left, else the caller's (the JVM's own work on the thread may set it).
 */
struct jpmpi_fp_frame {
    struct jpmpi_fp_frame *prev;
    unsigned app;   /* MXCSR as the Java level's caller had it */
    unsigned lib;   /* MXCSR as the level's last forwarded call left it (app: none yet) */
    int app_errno;  /* errno as the caller had it, */
    int lib_errno;  /* as the level's last forwarded call left it (app_errno: none yet) */
};
extern JPMPI_HIDDEN __thread struct jpmpi_fp_frame *jpmpi_fp_top __attribute__((tls_model("initial-exec")));
/* jpmpi_jdefs[k][slot]: Java level k's upcall stub for slot (its jpmpi_defs entry is the java-enter). */
extern JPMPI_HIDDEN jpmpi_fn jpmpi_jdefs[JPMPI_MAX_LEVELS][JPMPI_NSLOTS];
/* Generated, per slot (NULL for MPI_Pcontrol): java-enter and java-below. */
extern JPMPI_HIDDEN const jpmpi_fn jpmpi_java_enter[JPMPI_NSLOTS];
extern JPMPI_HIDDEN const jpmpi_fn jpmpi_java_below[JPMPI_NSLOTS];

#if defined(__x86_64__) || defined(__i386__)
static inline unsigned jpmpi_mxcsr(void)
{
    unsigned m;
    __asm__ volatile("stmxcsr %0" : "=m"(m));
    return m;
}
static inline void jpmpi_set_mxcsr(unsigned m)
{
    __asm__ volatile("ldmxcsr %0" : : "m"(m));
}
#else
static inline unsigned jpmpi_mxcsr(void)
{
    return 0;
}
static inline void jpmpi_set_mxcsr(unsigned m)
{
    (void)m;
}
#endif

/* The body of a java-enter: the Java level named by jpmpi_cur (set by the entry or guard that
 * chose it), between a frame's push and pop. */
#define JPMPI_JAVA_ENTER(ret, type, slot, args)                                       \
    do {                                                                              \
        struct jpmpi_fp_frame jp_f_;                                                  \
        jp_f_.prev = jpmpi_fp_top;                                                    \
        jp_f_.app = jp_f_.lib = jpmpi_mxcsr();                                        \
        jp_f_.app_errno = jp_f_.lib_errno = errno;                                    \
        jpmpi_fp_top = &jp_f_;                                                        \
        ret jp_r_ = ((type)jpmpi_jdefs[jpmpi_cur & 0xffu][slot])args;                 \
        jpmpi_fp_top = jp_f_.prev;                                                    \
        if (jp_f_.lib != jp_f_.app) {                                                 \
            jpmpi_set_mxcsr(jp_f_.lib);                                               \
        }                                                                             \
        errno = jp_f_.lib_errno;                                                      \
        return jp_r_;                                                                 \
    } while (0)

/* The body of a java-below: a guard (JPMPI_GUARD) whose call runs under the caller's MXCSR. Then
 * Java goes on under the MXCSR the call left, unless its control bits are not the JVM's (the
 * caller's were not: rounding, flush-to-zero, denormals-are-zero, masks): then under the JVM's.
 * Reading MXCSR is what costs (stmxcsr is microcoded on AMD Zen, ~5 ns): once here, once in the
 * java-enter, nowhere else; loading it is cheap. */
#define JPMPI_JVM_MXCSR 0x1f80u /* HotSpot's standard control bits on x86-64, flags clear */
#define JPMPI_JAVA_BELOW(ret, type, slot, alt, args)                                  \
    do {                                                                              \
        unsigned jp_c_ = jpmpi_cur;                                                   \
        unsigned jp_n_ = JPMPI_NEXT(slot, alt, jp_c_);                                \
        jpmpi_fn jp_to_ = jpmpi_bottom[slot];                                         \
        if (jp_n_ != JPMPI_BOTTOM) {                                                  \
            jp_to_ = jpmpi_defs[jp_n_][slot];                                         \
            jpmpi_cur = JPMPI_CUR(slot, jp_n_);                                       \
        }                                                                             \
        struct jpmpi_fp_frame *jp_f_ = jpmpi_fp_top;                                  \
        if (jp_f_) {                                                                  \
            jpmpi_set_mxcsr(jp_f_->app);                                              \
            errno = jp_f_->app_errno;                                                 \
        }                                                                             \
        ret jp_r_ = ((type)jp_to_)args;                                               \
        jpmpi_cur = jp_c_;                                                            \
        if (jp_f_) {                                                                  \
            unsigned jp_l_ = jpmpi_mxcsr();                                           \
            jp_f_->lib_errno = errno;                                                 \
            jp_f_->lib = jp_l_;                                                       \
            if ((jp_l_ & ~0x3fu) != JPMPI_JVM_MXCSR) {                                \
                jpmpi_set_mxcsr(JPMPI_JVM_MXCSR | (jp_l_ & 0x3fu));                   \
            }                                                                         \
        }                                                                             \
        return jp_r_;                                                                 \
    } while (0)

/* ---- jpmpi_abi.c (generated, in libmpiprofilesupport-abi.so): the ABI facts the Java side reads ---- */
struct jpmpi_abi_type {
    const char *name;
    int64_t size;
    int64_t pointer;   /* 1: a pointer, 0: an integer */
};
struct jpmpi_abi_constant {
    const char *name;
    int64_t value;
    int64_t present;   /* 0: this MPI does not define it */
};
struct jpmpi_abi_status {
    int64_t size, source, tag, error;
};
/* Its exports, found with dlsym: jpmpi_abi_types, jpmpi_abi_ntypes, jpmpi_abi_constants,
 * jpmpi_abi_nconstants, jpmpi_abi_status, and jpmpi_abi_load() which fills jpmpi_abi_constants. */
#define JPMPI_ABI_LIBRARY "libmpiprofilesupport-abi.so"

/*
 * ---- java.c: the embedded JVM ----
 * The bridge is all the Java runtime (io.jpmpi.layering.runtime.Bridge) gets from C: its address
 * is passed once, as a long, and Java reads the fields at these fixed offsets (every field is 8
 * bytes; keep the two in step, BRIDGE_VERSION says which layout this is).
 */
#define JPMPI_BRIDGE_VERSION 2
/* What the Java runtime asks of the core, through the one function `call` (one FFM downcall
 * handle serves them all, which keeps the JVM's start short). */
enum jpmpi_bridge_op {
    JPMPI_OP_ROUTE_ALL = 1, /* (level, int64_t *out, n) -> 0: out[slot] = where level's PMPI_X goes (a guard
                               or the library); level < 0: the library's PMPI_X */
    JPMPI_OP_INSTALL = 2,   /* (level, slot, fn)  -> 0, or -1: a Java level's definition (0: none) */
    JPMPI_OP_RELINK = 3,    /* ()                 -> 0: re-point every table and GOT */
    JPMPI_OP_MESSAGE = 4,   /* (const char *line) -> 0: one line on stderr, "jpmpi (rank r): " first */
    JPMPI_OP_VERBOSITY = 5  /* ()                 -> what the entry list asks to be said: 0, 1 (v), 2 (vv) */
};
struct jpmpi_bridge {
    int64_t version;                                  /*   0 */
    int64_t nslots;                                   /*   8 */
    const char *const *slot_names;                    /*  16 */
    const char *impl_id;                              /*  24 */
    const char *impl_version;                         /*  32 */
    int64_t (*call)(int64_t op, int64_t a, int64_t b, int64_t c); /* 40: enum jpmpi_bridge_op */
    const struct jpmpi_abi_type *types;               /*  48 */
    int64_t ntypes;                                   /*  56 */
    const struct jpmpi_abi_constant *constants;       /*  64 */
    int64_t nconstants;                               /*  72 */
    const struct jpmpi_abi_status *status;            /*  80 */
};

struct jpmpi_java_level {
    int level;          /* index in the level table */
    const char *jar;    /* the entry-list item */
};

/* Where the start-up time went (for the `vv` table). */
struct jpmpi_java_times {
    double find_ms;    /* finding and loading libjvm.so */
    double create_ms;  /* JNI_CreateJavaVM */
    double boot_ms;    /* the Java runtime: jars, interceptors, upcall stubs, relinking */
    int archive;       /* an AOT cache / CDS archive was used */
    const char *map;   /* the options its info file gave to map it (map.options; "" none) */
};

/* The JVM ends the process while it starts: one line like any failed start (naming the first
 * Java level's item), then stop with the status of a bad entry. */
void jpmpi_core_java_failed(const char *reason) __attribute__((noreturn));

/* Starts the JVM and loads the jars as levels; 0, or -1 with the failing level (or -1 for none)
 * in *culprit and a one-line reason in err. */
int jpmpi_java_start(const struct jpmpi_bridge *bridge, const struct jpmpi_java_level *jars, int njars,
                     struct jpmpi_java_times *times, int *culprit, char *err, size_t errlen);

/* ---- signals.c: the crash signals of a rank with a JVM ---- */
/* Before JNI_CreateJavaVM: the program's SIGSEGV/SIGBUS/SIGFPE/SIGILL handlers become its view and
 * the process's are the default; -1 and nothing done where the JVM chains by itself (libjsig.so
 * preloaded, or a libjvm.so without JVM_handle_linux_signal). */
int jpmpi_signals_before_jvm(void *libjvm);
/* After a JVM started: our handler takes its place; the JVM's faults stay the JVM's, the rest go
 * to the program's view. */
void jpmpi_signals_after_jvm(void);
/* The JVM did not start: the program's handlers back in place. */
void jpmpi_signals_abandon(void);

/* ---- entry.c: the entry list ---- */
enum jpmpi_item_kind { JPMPI_ITEM_C, JPMPI_ITEM_JAR };

struct jpmpi_item {
    enum jpmpi_item_kind kind;
    char *text;      /* as written, trimmed */
    int position;    /* 1-based item number in the list */
    int site;        /* 1: from the site's tools (site.c), 0: from the job's entry list */
};

struct jpmpi_entry_list {
    struct jpmpi_item items[JPMPI_MAX_LEVELS];
    int count;       /* levels, in order */
    int verbose;     /* 0, 1 (v) or 2 (vv) */
    int fort_pos;    /* Fortran calls enter at this level; default 0 (on top) */
    int preload;
};

/* Parses `text`; on error returns -1 with a one-line reason in `err`. */
int jpmpi_entry_parse(const char *text, struct jpmpi_entry_list *out, char *err, size_t errlen);
void jpmpi_entry_free(struct jpmpi_entry_list *list);

/* ---- site.c: the site's tools, added below the job's own ---- */
struct jpmpi_site {
    char file[4096];   /* the site configuration read ("" if none) */
    int added;         /* levels added from its tools */
    int opted_out;     /* the job opted out (JPMPI_SITE_TOOLS=off) and the site allows it */
    int refused;       /* the job asked to opt out and the site forbids it */
};

/* Reads the site configuration and appends its tools to `list` (after the job's items, skipping
 * the libraries the job lists already). Never fails: a problem is one line on stderr and the
 * site's tools are left out. */
void jpmpi_site_add(struct jpmpi_entry_list *list, struct jpmpi_site *site);

/* A path in the installation this library belongs to (its prefix: the directory above lib/<mpi>/). */
int jpmpi_install_path(const char *relative, char *out, size_t outlen);

/* ---- got.c: pointing a loaded object's references to MPI names at chosen targets ---- */
struct link_map;
/* Returns the target for an imported `name`, or NULL to leave the reference alone. */
typedef jpmpi_fn (*jpmpi_target_fn)(const char *name, void *ctx);
/* Rewrites the object's relocated references (GOT/PLT slots); returns how many, or -1. */
int jpmpi_patch_object(struct link_map *map, jpmpi_target_fn target, void *ctx, char *err, size_t errlen);
/* An address in the object's dynamic section: some ld.so keep d_ptr as link-time offsets, glibc
 * relocates most in place; both are accepted. */
uintptr_t jpmpi_dyn_addr(const struct link_map *map, uint64_t value);

/* ---- object.c: what a C level's file is ---- */
/* 0 if `path` is an ELF shared library for this process's machine; else -1 and what it is in err
 * ("no such file", "is a directory", "is not an ELF shared library (...)", "is an ELF for aarch64,
 * not x86-64"). */
int jpmpi_object_check(const char *path, char *err, size_t errlen);
/* The first DT_NEEDED of the loaded object that is an MPI library other than `mpi` (it defines
 * PMPI_Init), or NULL. */
const char *jpmpi_object_other_mpi(struct link_map *map, struct link_map *mpi);

#endif
