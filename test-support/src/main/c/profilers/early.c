/*
 * early: a run that ends before MPI_Finalize.
 *   early abort|exit|allexit|fatal|pollfatal|sendfatal|sendrecvfatal|winfatal|segv [iters=3] [doubles=100] [dir]
 * Every rank: iters x MPI_Sendrecv (doubles doubles to the right, from the left), MPI_Barrier.
 * Then, abort: the last rank posts an MPI_Isend of one double to rank 0 (tag 9, which no rank
 * receives), prints "early abort rank R" and calls MPI_Abort(MPI_COMM_WORLD, 3) without waiting for it;
 * exit: rank 0 prints "early exit rank 0" and returns from main without MPI_Finalize. The other
 * ranks sleep (outside MPI) until the launcher ends them; if it has not after 30 s they print
 * "early survived rank R" and call MPI_Finalize.
 * fatal: the last rank prints "early fatal rank R" and calls MPI_Send to rank size + 5 on
 * MPI_COMM_WORLD, whose handler is MPI_ERRORS_ARE_FATAL: the library ends it (and the job).
 * pollfatal: the same from a short call: the last rank makes 200 000 MPI_Comm_rank calls (so that
 * the profile times only about 1 in 100 of them, and an untimed one from the call site it found last
 * takes the recorder's lean path, which ends in the library's call), then prints "early pollfatal
 * rank R" and makes one more from the same call site (rank_of) on MPI_COMM_NULL: MPI_ERR_COMM on
 * MPI_COMM_WORLD's handler. (Not an MPI_Iprobe: on oversubscribed cores every call of it yields the
 * core and lasts long enough to be timed.)
 * sendfatal: the same with a function that moves bytes: the last rank makes 200 000 MPI_Send of one
 * double to MPI_PROC_NULL from one call site (send_to), then prints "early sendfatal rank R" and sends
 * one double to rank 0 with tag -7 from there: MPI_ERR_TAG. Its lean path counted the call with its
 * 8 bytes and a message to rank 0 first: all of that must be taken back.
 * sendrecvfatal: the same with MPI_Sendrecv (a function with arguments on the stack): 200 000 of one
 * double with MPI_PROC_NULL both ways from one call site (sendrecv_with), then "early sendrecvfatal
 * rank R" and one of one double with rank 0 both ways, send tag -7, from there: MPI_ERR_TAG. Its lean
 * path counted 8 bytes out, 8 in and a message to rank 0 first: all of that must be taken back.
 * winfatal: every rank makes a window over its buffer (MPI_Win_create: its handler is
 * MPI_ERRORS_ARE_FATAL), then the last rank prints "early winfatal rank R" and calls MPI_Win_lock
 * on rank size + 5: the library ends it (and the job).
 * segv: the last rank prints "early segv rank R" and writes through a null pointer (the program's
 * own crash): the rank ends with SIGSEGV (after the MPI library's own handler, where it has one).
 * allexit: every rank prints "early allexit rank R" and returns from main without MPI_Finalize;
 * an exit handler registered before MPI_Init (so it runs after every handler the tools register in
 * MPI_Init, their end-of-run dumps among them) creates dir/exited-R and waits, at most 20 s, until
 * every rank's file is there: no rank leaves, and so no launcher ends the others, before every rank
 * has run all its exit handlers.
 * MPI calls before the end: MPI_Init, MPI_Comm_rank, MPI_Comm_size, iters x MPI_Sendrecv,
 * MPI_Barrier (and MPI_Isend and MPI_Abort on the aborting rank).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

static const char *rendezvous_dir;

/* MPI_Comm_rank from one call site, however the loop around it is compiled */
static __attribute__((noinline)) void rank_of(MPI_Comm comm, int *rank)
{
    MPI_Comm_rank(comm, rank);
    __asm__ __volatile__("" ::: "memory");
}
/* MPI_Send of one double from one call site */
static __attribute__((noinline)) void send_to(const double *x, int dest, int tag)
{
    MPI_Send(x, 1, MPI_DOUBLE, dest, tag, MPI_COMM_WORLD);
    __asm__ __volatile__("" ::: "memory");
}
/* MPI_Sendrecv of one double each way with one peer, from one call site */
static __attribute__((noinline)) void sendrecv_with(const double *x, double *y, int peer, int tag)
{
    MPI_Sendrecv(x, 1, MPI_DOUBLE, peer, tag, y, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    __asm__ __volatile__("" ::: "memory");
}
static int my_rank = -1, world_size;

/* Runs last at exit: dir/exited-<rank>, then wait (<= 20 s) for every rank's. */
static void rendezvous(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/exited-%d", rendezvous_dir, my_rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        close(fd);
    }
    for (int tries = 0; tries < 400; tries++) {
        int there = 0;
        for (int r = 0; r < world_size; r++) {
            snprintf(path, sizeof path, "%s/exited-%d", rendezvous_dir, r);
            there += access(path, F_OK) == 0;
        }
        if (there == world_size) {
            return;
        }
        usleep(50000);
    }
}

int main(int argc, char **argv)
{
    int all_exit = argc > 1 && strcmp(argv[1], "allexit") == 0;
    if (all_exit) {
        rendezvous_dir = argc > 4 ? argv[4] : ".";
        atexit(rendezvous);
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_rank = rank;
    world_size = size;
    int abort_mode = argc > 1 && strcmp(argv[1], "abort") == 0;
    int fatal_mode = argc > 1 && strcmp(argv[1], "fatal") == 0;
    int segv_mode = argc > 1 && strcmp(argv[1], "segv") == 0;
    int win_mode = argc > 1 && strcmp(argv[1], "winfatal") == 0;
    int poll_mode = argc > 1 && strcmp(argv[1], "pollfatal") == 0;
    int send_mode = argc > 1 && strcmp(argv[1], "sendfatal") == 0;
    int sendrecv_mode = argc > 1 && strcmp(argv[1], "sendrecvfatal") == 0;
    int iters = argc > 2 ? atoi(argv[2]) : 3;
    int m = argc > 3 ? atoi(argv[3]) : 100;
    double *out = calloc((size_t)(m > 0 ? m : 1), sizeof(double));
    double *in = calloc((size_t)(m > 0 ? m : 1), sizeof(double));
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    for (int it = 0; it < iters; it++) {
        MPI_Sendrecv(out, m, MPI_DOUBLE, right, it, in, m, MPI_DOUBLE, left, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (all_exit) {
        printf("early allexit rank %d\n", rank);
        fflush(stdout);
        return 0;
    }
    if (fatal_mode && rank == size - 1) {
        printf("early fatal rank %d\n", rank);
        fflush(stdout);
        MPI_Send(out, 1, MPI_DOUBLE, size + 5, 0, MPI_COMM_WORLD);
    }
    if (poll_mode && rank == size - 1) {
        int me = 0;
        for (int i = 0; i < 200000; i++) {
            rank_of(MPI_COMM_WORLD, &me);
        }
        printf("early pollfatal rank %d\n", rank);
        fflush(stdout);
        rank_of(MPI_COMM_NULL, &me);
    }
    if (send_mode && rank == size - 1) {
        for (int i = 0; i < 200000; i++) {
            send_to(out, MPI_PROC_NULL, 0);
        }
        printf("early sendfatal rank %d\n", rank);
        fflush(stdout);
        send_to(out, 0, -7);
    }
    if (sendrecv_mode && rank == size - 1) {
        for (int i = 0; i < 200000; i++) {
            sendrecv_with(out, in, MPI_PROC_NULL, 0);
        }
        printf("early sendrecvfatal rank %d\n", rank);
        fflush(stdout);
        sendrecv_with(out, in, 0, -7);
    }
    if (win_mode) {
        MPI_Win win;
        MPI_Win_create(in, (MPI_Aint)(m > 0 ? m : 1) * (MPI_Aint)sizeof(double), sizeof(double), MPI_INFO_NULL,
                       MPI_COMM_WORLD, &win);
        if (rank == size - 1) {
            printf("early winfatal rank %d\n", rank);
            fflush(stdout);
            MPI_Win_lock(MPI_LOCK_SHARED, size + 5, 0, win);
        }
    }
    if (segv_mode && rank == size - 1) {
        printf("early segv rank %d\n", rank);
        fflush(stdout);
        volatile int *nowhere = (volatile int *)(intptr_t)strtol(argc > 99 ? argv[99] : "0", NULL, 0);
        *nowhere = rank;
    }
    if (abort_mode && rank == size - 1) {
        MPI_Request pending;
        MPI_Isend(out, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, &pending);
        printf("early abort rank %d\n", rank);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 3);
    } else if (!abort_mode && !fatal_mode && !segv_mode && !win_mode && !poll_mode && !send_mode && !sendrecv_mode
               && rank == 0) {
        printf("early exit rank %d\n", rank);
        fflush(stdout);
        return 0;
    }
    for (int s = 0; s < 300; s++) {
        usleep(100000);
    }
    printf("early survived rank %d\n", rank);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
