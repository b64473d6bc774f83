/*
 * sigown: a program with its own SIGSEGV handler, set after MPI_Init, that recovers from its own
 * faults. Prints what a program can see of its signal handlers, so a run through jpmpi can be
 * compared line by line with a run without it:
 *   "sigown rank R before: default|set" - SIGSEGV's handler after MPI_Init, before the program's
 *   "sigown rank R query: ours|other"   - what sigaction() returns once the program's is set
 *   "sigown rank R recovered K"         - K faults, each caught by the program's handler
 *   "sigown rank R signal: ours|other"  - what signal(SIGSEGV, SIG_DFL) returns afterwards
 *   "sigown rank R sum S"               - an MPI_Allreduce of the recovered counts after the faults
 *   sigown [faults=3]
 */
#include <mpi.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sigjmp_buf back;
static volatile sig_atomic_t caught;

static void on_segv(int sig, siginfo_t *info, void *context)
{
    (void)sig;
    (void)info;
    (void)context;
    caught++;
    siglongjmp(back, 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int faults = argc > 1 ? atoi(argv[1]) : 3;

    struct sigaction now, mine;
    sigaction(SIGSEGV, NULL, &now);
    printf("sigown rank %d before: %s\n", rank, now.sa_handler == SIG_DFL ? "default" : "set");
    memset(&mine, 0, sizeof mine);
    mine.sa_sigaction = on_segv;
    mine.sa_flags = SA_SIGINFO;
    sigemptyset(&mine.sa_mask);
    sigaction(SIGSEGV, &mine, NULL);
    sigaction(SIGSEGV, NULL, &now);
    printf("sigown rank %d query: %s\n", rank,
           (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_segv ? "ours" : "other");

    /* the address comes from the command line's absence, so the compiler cannot see it is null */
    volatile int *nowhere = (volatile int *)(intptr_t)strtol(argc > 99 ? argv[99] : "0", NULL, 0);
    for (int i = 0; i < faults; i++) {
        if (sigsetjmp(back, 1) == 0) {
            *nowhere = i;
        }
        /* MPI between the faults: the Java levels run (and take their own implicit null checks) */
        int one = 1, all = 0;
        MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    printf("sigown rank %d recovered %d\n", rank, (int)caught);
    void (*old)(int) = signal(SIGSEGV, SIG_DFL);
    printf("sigown rank %d signal: %s\n", rank, (void *)old == (void *)on_segv ? "ours" : "other");
    int k = (int)caught, sum = 0;
    MPI_Allreduce(&k, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("sigown rank %d sum %d\n", rank, sum);
    MPI_Finalize();
    return 0;
}
