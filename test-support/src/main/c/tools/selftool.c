/*
 * selftool.c - a plain PMPI tool that calls MPI itself, to tell MPI_X from PMPI_X inside a level.
 *
 * Its MPI_Send logs "self enter MPI_Send", then calls MPI_Comm_rank (the MPI_ name, as a tool
 * may), which must reach its own MPI_Comm_rank (logs "self MPI_Comm_rank"), then PMPI_Send, which
 * must reach the next level below it, then logs "self exit MPI_Send". Its own logging finds the
 * rank with PMPI_Comm_rank, which logs nothing. Same log file as logtool.c.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include "testlog.h"

static void log_line(const char *text)
{
    char line[256];
    snprintf(line, sizeof line, "self %s\n", text);
    testlog_write(line);
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    log_line("MPI_Comm_rank");
    return PMPI_Comm_rank(comm, rank);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    log_line("enter MPI_Send");
    int me = -1;
    MPI_Comm_rank(comm, &me);
    int rc = PMPI_Send(buf, count, datatype, dest, tag, comm);
    log_line("exit MPI_Send");
    return rc;
}
