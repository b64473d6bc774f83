/*
 * selftool.c - a plain PMPI tool that calls MPI itself, to tell MPI_X from PMPI_X inside a level.
 *
 * Its MPI_Send logs "self enter MPI_Send", then calls MPI_Comm_rank (the MPI_ name, as a tool
 * may), which must reach its own MPI_Comm_rank (logs "self MPI_Comm_rank"), then PMPI_Send, which
 * must reach the next level below it, then logs "self exit MPI_Send". Its own logging finds the
 * rank with PMPI_Comm_rank, which logs nothing. Same log file as logtool.c.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void log_line(const char *text)
{
    const char *dir = getenv("JPMPI_TEST_LOG");
    if (dir == NULL || *dir == '\0') {
        return;
    }
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/rank%d.log", dir, rank);
    int n = snprintf(line, sizeof line, "self %s\n", text);
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
