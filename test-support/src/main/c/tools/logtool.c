/*
 * logtool.c - a plain PMPI tool (it knows nothing of jpmpi) that logs when its wrappers of
 * MPI_Send, MPI_Recv and MPI_Barrier are entered and left.
 *
 * Built several times with a different TOOL_NAME (liblog<name>.so). All copies in one process
 * write to the same per-rank file, $JPMPI_TEST_LOG/rank<r>.log, opened with O_APPEND and written
 * with one write() per line, so the file shows how the levels nest:
 *   a enter MPI_Send / b enter MPI_Send / b exit MPI_Send / a exit MPI_Send
 * Without JPMPI_TEST_LOG the wrappers only pass the call on.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include "testlog.h"

#ifndef TOOL_NAME
#error "build with -DTOOL_NAME='\"name\"'"
#endif

static void log_line(const char *what, const char *function)
{
    char line[256];
    snprintf(line, sizeof line, "%s %s %s\n", TOOL_NAME, what, function);
    testlog_write(line);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    log_line("enter", "MPI_Send");
    int rc = PMPI_Send(buf, count, datatype, dest, tag, comm);
    log_line("exit", "MPI_Send");
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    log_line("enter", "MPI_Recv");
    int rc = PMPI_Recv(buf, count, datatype, source, tag, comm, status);
    log_line("exit", "MPI_Recv");
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    log_line("enter", "MPI_Barrier");
    int rc = PMPI_Barrier(comm);
    log_line("exit", "MPI_Barrier");
    return rc;
}
