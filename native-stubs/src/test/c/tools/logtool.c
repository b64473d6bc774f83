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
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TOOL_NAME
#error "build with -DTOOL_NAME='\"name\"'"
#endif

static void log_line(const char *what, const char *function)
{
    const char *dir = getenv("JPMPI_TEST_LOG");
    if (dir == NULL || *dir == '\0') {
        return;
    }
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/rank%d.log", dir, rank);
    int n = snprintf(line, sizeof line, "%s %s %s\n", TOOL_NAME, what, function);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        perror(path);
        return;
    }
    if (write(fd, line, (size_t)n) != n) {
        perror(path);
    }
    close(fd);
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
