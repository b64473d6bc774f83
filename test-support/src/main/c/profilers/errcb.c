/*
 * errcb.c - an MPI call the application makes from inside another one: MPI_COMM_WORLD's error handler
 * (the program's own, MPI_Comm_create_errhandler) is called by the library inside an MPI_Send to a
 * rank that does not exist, and asks MPI_Comm_rank and MPI_Error_class there, and receives from
 * MPI_PROC_NULL (MPI_Recv: 7 arguments, one on the stack on x86-64). It returns, so the send
 * returns its error and the program goes on: the library's handler back, a barrier, MPI_Finalize.
 * Prints "errcb rank R: ok" when the handler ran once, saw this rank and MPI_ERR_RANK's class and an empty
 * receive, and the send returned an error; exits 1 otherwise.
 * MPI calls: MPI_Init, MPI_Comm_rank (twice: once in main, once in the handler), MPI_Comm_size,
 * MPI_Comm_create_errhandler, MPI_Comm_set_errhandler (twice), MPI_Send, MPI_Error_class, MPI_Recv,
 * MPI_Get_count, MPI_Errhandler_free, MPI_Barrier, MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>

static int handled, seen_rank = -1, seen_class = -1, received = -1;

static void handler(MPI_Comm *comm, int *code, ...)
{
    handled++;
    MPI_Comm_rank(*comm, &seen_rank);
    MPI_Error_class(*code, &seen_class);
    int nothing = 0;
    MPI_Status st;
    if (MPI_Recv(&nothing, 1, MPI_INT, MPI_PROC_NULL, 3, *comm, &st) == MPI_SUCCESS) {
        MPI_Get_count(&st, MPI_INT, &received);
    }
}

int main(int argc, char **argv)
{
    int rank, size, value = 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    int rc = MPI_Send(&value, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
    MPI_Barrier(MPI_COMM_WORLD);
    int ok = rc != MPI_SUCCESS && handled == 1 && seen_rank == rank && seen_class == MPI_ERR_RANK && received == 0;
    printf("errcb rank %d: %s (send returned %d, handler ran %d times, saw rank %d and class %d, received %d)\n",
           rank, ok ? "ok" : "FAILED", rc, handled, seen_rank, seen_class, received);
    MPI_Finalize();
    return ok ? 0 : 1;
}
