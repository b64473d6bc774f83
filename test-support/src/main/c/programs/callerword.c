/*
 * callerword.c - does an MPI call go through a level, or straight to the library? The dispatcher's
 * caller word (jpmpi_caller_word, jpmpi.h) is written by every call that enters a level and by no
 * other. After MPI_Init the program reads the word, calls MPI_Comm_rank and MPI_Send (to
 * MPI_PROC_NULL), and reads it after each: a call that went to a level left its own call site
 * there, a plain jump to the library left the word as it was. Prints, per rank,
 *   callerword rank <r>: MPI_Comm_rank <entered|plain> MPI_Send <entered|plain>
 * or "callerword rank <r>: no dispatcher" where jpmpi_caller_word is not defined.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>

typedef void *const *(*caller_word_t)(void);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    caller_word_t word = (caller_word_t)(void (*)(void))dlsym(RTLD_DEFAULT, "jpmpi_caller_word");
    if (word == NULL) {
        printf("callerword rank %d: no dispatcher\n", rank);
    } else {
        void *const *w = word();
        void *before = *w;
        int r = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        void *after_rank = *w;
        MPI_Send(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        void *after_send = *w;
        printf("callerword rank %d: MPI_Comm_rank %s MPI_Send %s\n", rank, after_rank != before ? "entered" : "plain",
               after_send != after_rank ? "entered" : "plain");
    }
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
