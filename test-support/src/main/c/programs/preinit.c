/*
 * preinit.c - MPI calls allowed before MPI_Init: MPI_Initialized and MPI_T_init_thread, then
 * MPI_Init, MPI_T_finalize and MPI_Finalize (MPI_T_finalize between them: MPICH 4.0.2 crashes in
 * MPI_Init when the tools interface was finalized before it, Open MPI 4.1.4 in MPI_T_finalize
 * after MPI_Finalize). With a Java level, the first call starts
 * the JVM, so the level sees all of them. Prints "preinit rank <r>: initialized-before=0 ok".
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int flag = -1, provided = -1;
    MPI_Initialized(&flag);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("preinit rank %d: initialized-before=%d ok\n", rank, flag);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
