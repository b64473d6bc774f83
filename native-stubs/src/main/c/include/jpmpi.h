/*
 * jpmpi.h - the public interface of libmpiprofilesupport.so.
 *
 * libmpiprofilesupport.so defines every MPI_X and PMPI_X of the MPI it was built for and sends
 * each call through the levels listed in JPMPI_TOOLS_ENTRY (or OMPI_MCA_ompi_tools_entry), top
 * first, down to the MPI library. The functions below let a tool or a test ask what was set up.
 * Every export has the jpmpi_ prefix and a _t function-pointer type, so a tool can look them up
 * with dlsym and work whether jpmpi is there or not. The do-nothing stub library of the same name
 * defines them too: jpmpi_active() tells the two apart.
 */
#ifndef JPMPI_H
#define JPMPI_H

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this interface. */
#define JPMPI_API_VERSION 4
/* Exit status of a process whose entry list cannot be used (sysexits' EX_CONFIG). */
#define JPMPI_EXIT_BAD_ENTRY 78
/* At most this many levels in one process. */
#define JPMPI_MAX_LEVELS 64

/* A function pointer of no particular type: cast it to the MPI function's own type to call it. */
typedef void (*jpmpi_function_t)(void);

/* 1 in the real dispatcher, 0 in the do-nothing stub. */
int jpmpi_active(void);
typedef int (*jpmpi_active_t)(void);

/* "openmpi 4.1.4" or "mpich 4.0.2": the MPI this dispatcher was generated for; "" in the stub. */
const char *jpmpi_implementation(void);
typedef const char *(*jpmpi_implementation_t)(void);

/* Number of levels (C libraries and Java jars) between the application and the MPI library. */
int jpmpi_level_count(void);
typedef int (*jpmpi_level_count_t)(void);

/* The entry-list item of level `level` (0 = top), or NULL if there is no such level. */
const char *jpmpi_level_entry(int level);
typedef const char *(*jpmpi_level_entry_t)(int level);

/* 1 if level `level` defines `mpi_name` ("MPI_Send"), else 0. */
int jpmpi_level_defines(int level, const char *mpi_name);
typedef int (*jpmpi_level_defines_t)(int level, const char *mpi_name);

/*
 * What a call to `mpi_name` made at depth `depth` reaches: the definition of the first level
 * >= depth that defines it, or the MPI library's. A level k calling MPI_X reaches
 * jpmpi_resolve(k, "MPI_X"); its PMPI_X reaches jpmpi_resolve(k + 1, "MPI_X").
 * NULL for a name the dispatcher does not know.
 */
jpmpi_function_t jpmpi_resolve(int depth, const char *mpi_name);
typedef jpmpi_function_t (*jpmpi_resolve_t)(int depth, const char *mpi_name);

/* Since version 2: how many MPI functions the dispatcher has (0 in the stub), ... */
int jpmpi_function_count(void);
typedef int (*jpmpi_function_count_t)(void);

/* ... and the name of function `i` ("MPI_Send"; its PMPI_ name is "P" before it), or NULL. */
const char *jpmpi_function_name(int i);
typedef const char *(*jpmpi_function_name_t)(int i);

/*
 * Since version 3: where the calling thread's caller word is. Every call of the application (its
 * MPI_X or PMPI_X, or the MPI library's Fortran layer's) that goes to a level stores its return
 * address there before the first level runs, so any level, at any depth, reads the call site of
 * the call it is in (the Fortran layer's own address for a Fortran call). The word belongs to the
 * thread: ask once per thread. The stub's word is always NULL.
 */
void *const *jpmpi_caller_word(void);
typedef void *const *(*jpmpi_caller_word_t)(void);

/* Since version 4: the level whose library holds `address` (give one of the tool's own functions:
 * that is how a tool finds its own level), or -1 (not a level's code; the stub: always -1). */
int jpmpi_level_of(const void *address);
typedef int (*jpmpi_level_of_t)(const void *address);

/*
 * Since version 4: C level `level` leaves the chain, from now on, for some of the MPI functions it
 * defines: with JPMPI_LEAVE_THESE the `n` names in `names` ("MPI_Send"), with JPMPI_LEAVE_ALL_BUT
 * every function it defines except those. Every route that reached the level for such a function
 * goes on to the next level defining it, or to the MPI library: the application's MPI_X and PMPI_X,
 * the Fortran layer's calls, the levels above (their PMPI_X), MPI_Pcontrol; a function no level
 * defines any more is again one jump to the library. The level's own code stays loaded and its
 * wrapper still works if a call that was already on its way reaches it (other threads may be
 * calling meanwhile: every route is switched with one atomic store). Call it after MPI_Init (not
 * from a constructor); there is no way back. jpmpi_level_defines and jpmpi_resolve answer as if
 * the level did not define what it left.
 * Returns how many functions the level left with this call (0: nothing to leave), or -1 and
 * nothing left, said in one line on stderr: no such C level, a bad `how` or `n`, or a name the
 * dispatcher does not know. The stub returns -1.
 */
#define JPMPI_LEAVE_THESE 0
#define JPMPI_LEAVE_ALL_BUT 1
int jpmpi_level_leave(int level, int how, const char *const *names, int n);
typedef int (*jpmpi_level_leave_t)(int level, int how, const char *const *names, int n);

#ifdef __cplusplus
}
#endif

#endif
