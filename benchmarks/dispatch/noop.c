/* noop.c - the thinnest PMPI wrapper: what a level costs when it does nothing. */
#include <mpi.h>

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    return PMPI_Comm_rank(comm, rank);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return PMPI_Iprobe(source, tag, comm, flag, status);
}
