/*
 * rec_sym.h - what dladdr(3) says of many addresses at once (rec_sym.c), for the call sites written
 * at MPI_Finalize. No MPI here: src/test/c/sym_check.c builds it alone and compares it with dladdr.
 */
#ifndef JP_REC_SYM_H
#define JP_REC_SYM_H

#include <stddef.h>
#include <stdint.h>

/*
 * dladdr's answer for one address: the module it is in (known: 0 when none holds it), the module's
 * file name and load base (dli_fname, dli_fbase), and the dynamic symbol whose extent holds the
 * address (sname, NULL when none; saddr). The names point into the loaded modules: good while they
 * stay loaded.
 */
struct jp_sym {
    int known;
    const char *module;
    uintptr_t base;
    const char *sname;
    uintptr_t saddr;
};

/*
 * dladdr's answers for addr[0 .. n-1] in out[0 .. n-1], found with one pass over each module's
 * dynamic symbols for all the addresses in it, where dladdr reads every symbol of the module for
 * each address (a C++ library of 15 000 symbols and 80 call sites: ~6 ms in each rank's
 * MPI_Finalize). 0; -1 when memory runs out (out then says nothing).
 */
int jp_sym_resolve(const uintptr_t *addr, size_t n, struct jp_sym *out);

#endif
