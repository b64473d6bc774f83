/*
 * instr.c - the loops whose instructions instructions.sh counts with valgrind's callgrind, on one
 * rank: N calls each of MPI_Comm_rank, an MPI_Iprobe that finds nothing, MPI_Send to MPI_PROC_NULL,
 * and MPI_Testany polling a started persistent receive that nothing matches yet (a request a
 * profiling tool follows, so that its completion calls cannot take a shortcut: what hpcc's polling
 * MPI_Testany meets), and MPI_Sendrecv of one int to the rank itself on a duplicate of
 * MPI_COMM_WORLD (a real message, on a communicator whose ranks a tool maps). Each loop is a function of its own, never inlined, so that callgrind's
 * --toggle-collect counts it and everything it calls, and nothing else: the count is the same from run
 * to run, whatever else the machine does.
 *   instr N
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define LOOP __attribute__((noinline, used))

LOOP void instr_comm_rank(long n)
{
    int r;
    for (long i = 0; i < n; i++) {
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    }
}

LOOP void instr_iprobe(long n)
{
    int flag;
    for (long i = 0; i < n; i++) {
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
}

LOOP void instr_send(long n)
{
    int v = 0;
    for (long i = 0; i < n; i++) {
        MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    }
}

LOOP int instr_testany(long n, MPI_Request *req)
{
    int index, flag, completed = 0;
    for (long i = 0; i < n; i++) {
        MPI_Testany(1, req, &index, &flag, MPI_STATUS_IGNORE);
        completed += flag && index != MPI_UNDEFINED;
    }
    return completed;
}

LOOP void instr_sendrecv(long n, MPI_Comm comm)
{
    int out = 1, in = 0;
    for (long i = 0; i < n; i++) {
        MPI_Sendrecv(&out, 1, MPI_INT, 0, 3, &in, 1, MPI_INT, 0, 3, comm, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    MPI_Init(&argc, &argv);
    int rank, v = 1, w = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    instr_comm_rank(n);
    instr_iprobe(n);
    instr_send(n);
    MPI_Request recv;
    MPI_Recv_init(&w, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, &recv);
    MPI_Start(&recv);
    int early = instr_testany(n, &recv);
    MPI_Send(&v, 1, MPI_INT, rank, 7, MPI_COMM_WORLD);
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
    MPI_Request_free(&recv);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    instr_sendrecv(n, dup);
    MPI_Comm_free(&dup);
    printf("instr: %ld calls each; the pending receive completed during the polling %d times (0: every poll"
           " found nothing)\n", n, early);
    MPI_Finalize();
    return early != 0 || w != 1;
}
