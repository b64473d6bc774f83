/*
 * sysv_syms.c - a shared library linked with only the old ELF hash table (DT_HASH, no DT_GNU_HASH:
 * -Wl,--hash-style=sysv, the Makefile's libsysv-syms.so), for sym_check.c: with no GNU hash table
 * dladdr reads the whole dynamic symbol table and takes only the global and weak symbols that do not
 * bind locally, which rec_sym.c's second path must do alike. Every kind of symbol that rule sorts:
 * global and weak functions and data, aliases at one address, a protected one, symbols without a
 * size (assembly labels), an absolute symbol, a thread-local variable, and a local function (not in
 * the dynamic table at all).
 */
#include <stdint.h>

#define EXPORT __attribute__((visibility("default"), noinline, used))
#define EXPORT_DATA __attribute__((visibility("default"), used))

/* functions of several sizes, so that some addresses fall after the end of one and before the next */
EXPORT int sysv_small(int x)
{
    return x + 1;
}

EXPORT long sysv_larger(long a, long b)
{
    long s = 0;
    for (long i = a; i < b; i++) {
        s += i * i ^ (s >> 3);
    }
    return s;
}

__attribute__((weak, visibility("default"), noinline)) int sysv_weak(int x)
{
    return x * 3;
}

/* two names at one address (dladdr takes the first it meets of equal starts) */
EXPORT int sysv_aliased(int x)
{
    return x - 7;
}
extern int sysv_alias_one(int) __attribute__((alias("sysv_aliased"), visibility("default")));
__attribute__((weak)) extern int sysv_alias_weak(int) __attribute__((alias("sysv_aliased"), visibility("default")));

/* protected: in the dynamic table, binding within the library, still taken by dladdr */
__attribute__((visibility("protected"), noinline, used)) int sysv_protected(int x)
{
    return x ^ 0x55;
}

/* local: in no dynamic table; its addresses fall to the symbol before it, or none */
static __attribute__((noinline, used)) int sysv_local(int x)
{
    return x << 2;
}

EXPORT int sysv_calls_local(int x)
{
    return sysv_local(x) + 1;
}

/* data: initialised, zero-initialised, read-only */
EXPORT_DATA int sysv_data[64] = {1, 2, 3};
EXPORT_DATA char sysv_bss[4096];
EXPORT_DATA const char sysv_rodata[] = "a read-only string of the sysv test library";

/* thread-local: dladdr never names it */
__thread __attribute__((visibility("default"))) int sysv_tls[8];

/* labels without a size (a symbol of no size matches its own address only), at 8-byte steps so that
 * sym_check's dense addresses land on them, and an absolute symbol (dladdr skips SHN_ABS) */
__asm__(".text\n"
        ".p2align 4\n"
        ".globl sysv_nosize_a\n"
        ".type sysv_nosize_a, @function\n"
        "sysv_nosize_a:\n"
        "  ret\n"
        ".p2align 3\n"
        ".globl sysv_nosize_b\n"
        ".weak sysv_nosize_b\n"
        "sysv_nosize_b:\n"
        "  nop\n"
        "  ret\n"
        ".p2align 3\n"
        ".globl sysv_nosize_c\n"
        "sysv_nosize_c:\n"
        "  ret\n"
        ".globl sysv_absolute\n"
        ".set sysv_absolute, 0x1000\n");
