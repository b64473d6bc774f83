/*
 * stub.c - the do-nothing libmpiprofilesupport.so for link time.
 *
 * An application linked with -lmpiprofilesupport finds this stub by default and runs as if jpmpi
 * were not there: it defines no MPI function, only the jpmpi_ queries, which answer "inactive".
 * Put a real dispatcher's directory first on LD_LIBRARY_PATH and the same binary runs its levels.
 */
#include <stddef.h>
#include "jpmpi.h"

#define JPMPI_EXPORT __attribute__((visibility("default")))

JPMPI_EXPORT int jpmpi_active(void)
{
    return 0;
}

JPMPI_EXPORT const char *jpmpi_implementation(void)
{
    return "";
}

JPMPI_EXPORT void *const *jpmpi_caller_word(void)
{
    static void *const none = 0;
    return &none;
}

JPMPI_EXPORT int jpmpi_level_count(void)
{
    return 0;
}

JPMPI_EXPORT const char *jpmpi_level_entry(int level)
{
    (void)level;
    return NULL;
}

JPMPI_EXPORT int jpmpi_level_defines(int level, const char *mpi_name)
{
    (void)level;
    (void)mpi_name;
    return 0;
}

JPMPI_EXPORT jpmpi_function_t jpmpi_resolve(int depth, const char *mpi_name)
{
    (void)depth;
    (void)mpi_name;
    return NULL;
}

JPMPI_EXPORT int jpmpi_function_count(void)
{
    return 0;
}

JPMPI_EXPORT const char *jpmpi_function_name(int i)
{
    (void)i;
    return NULL;
}

JPMPI_EXPORT int jpmpi_level_of(const void *address)
{
    (void)address;
    return -1;
}

JPMPI_EXPORT int jpmpi_level_leave(int level, int how, const char *const *names, int n)
{
    (void)level;
    (void)how;
    (void)names;
    (void)n;
    return -1;
}
